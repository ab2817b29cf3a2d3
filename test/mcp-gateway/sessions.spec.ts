import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  faultServer,
  filesystemServer,
  gatewayMetric,
  type GatewayProcess,
  httpAgent,
  sessionIdOf,
  startGateway,
  textOf,
  writeGatewayConfig,
} from '../support/mcp-gateway';
import { messagesOf, RawMcpSession } from '../support/mcp-raw-session';
import { waitFor } from '../support/wait-for';

/** Long enough that a call to the fault server's `hang` tool outlasts the idle time by far. */
const CALL_TIMEOUT_S = 8;

const live = async (gateway: GatewayProcess) =>
  (await gatewayMetric(gateway, 'tollgate_mcp_sessions{state="busy"}')) +
  (await gatewayMetric(gateway, 'tollgate_mcp_sessions{state="idle"}'));
const busy = (gateway: GatewayProcess) =>
  gatewayMetric(gateway, 'tollgate_mcp_sessions{state="busy"}');
const closed = (why: 'idle' | 'evicted') => `tollgate_mcp_sessions_closed_total{why="${why}"}`;

/**
 * M8: MCP sessions are bounded. One idle past TOLLGATE_MCP_SESSION_IDLE_SECONDS is closed and
 * its agent resumes it under the same id; an exchange in progress (a held call, the SDK client's
 * standing GET stream) keeps it; past TOLLGATE_MCP_MAX_SESSIONS the oldest idle one gives way,
 * and with every session busy a new agent is refused with a reason.
 */
describe('MCP gateway: bounded sessions (M8)', () => {
  let dir: string;
  let config: string;
  const agents: Client[] = [];
  const gateways: GatewayProcess[] = [];

  const agent = async (gateway: GatewayProcess, sessionId?: string) => {
    const client = await httpAgent(gateway, sessionId);
    agents.push(client);
    return client;
  };
  const listNote = async (client: Client) =>
    textOf(await client.callTool({ name: 'fs__read_text_file', arguments: { path: note() } }));
  const note = () => join(dir, 'note.txt');

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-fs-'));
    writeFileSync(note(), 'a note\n');
    config = writeGatewayConfig({
      servers: { fs: filesystemServer(dir), fault: faultServer() },
      callTimeoutSeconds: CALL_TIMEOUT_S,
      policy: { default: 'allow' },
    });
  });

  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
    await Promise.all(gateways.map((g) => g.stop()));
  });

  describe('idle expiry', () => {
    let gateway: GatewayProcess;

    beforeAll(async () => {
      gateway = await startGateway(config, { TOLLGATE_MCP_SESSION_IDLE_SECONDS: '1' });
      gateways.push(gateway);
      await gateway.waitUntilReady();
    });

    it('M8 a session its agent left without DELETE is closed once idle, and the agent takes the same id back on its next call', async () => {
      const first = await agent(gateway);
      expect(await listNote(first)).toBe('a note\n');
      const id = sessionIdOf(first);
      expect(await live(gateway)).toBe(1);
      await first.close(); // its GET stream ends; no DELETE is sent

      await waitFor('the idle session to be closed', async () => {
        return (await gatewayMetric(gateway, closed('idle'))) === 1;
      });
      expect(await live(gateway)).toBe(0);

      const back = await agent(gateway, id);
      expect(await listNote(back)).toBe('a note\n');
      expect(sessionIdOf(back)).toBe(id);
      expect(await live(gateway)).toBe(1);
      await back.close();
    });

    it('M8 a call in progress keeps its session past the idle time, though no other exchange is open', async () => {
      await waitFor('the earlier sessions to be gone', async () => (await live(gateway)) === 0);
      const idleBefore = await gatewayMetric(gateway, closed('idle'));
      // A raw session: the SDK client's standing GET stream would keep the session by itself.
      const held = await RawMcpSession.open(gateway.url('/mcp'));
      const call = await held.callTool(1, 'fault__hang', {});
      expect(call.status).toBe(200);

      // A witness idle for less time than the held session is closed first: once it is, the
      // held session has been without any other exchange for longer than the idle time.
      const witness = await agent(gateway);
      await witness.close();
      await waitFor(
        'the witness session to be closed as idle',
        async () => (await gatewayMetric(gateway, closed('idle'))) === idleBefore + 1,
      );

      const [answer] = await messagesOf(call);
      expect(answer).toMatchObject({ id: 1, result: { isError: true } });
      expect(JSON.stringify(answer)).toMatch(/MCP server \\"fault\\" did not answer/);
      expect(await gatewayMetric(gateway, closed('idle'))).toBe(idleBefore + 1);
      const after = await held.callTool(2, 'fault__echo', { text: 'still here' });
      expect(after.status).toBe(200);
      expect(JSON.stringify(await messagesOf(after))).toContain('echo:still here');
    }, 30_000);
  });

  describe('the session limit', () => {
    let gateway: GatewayProcess;

    beforeAll(async () => {
      gateway = await startGateway(config, {
        TOLLGATE_MCP_MAX_SESSIONS: '2',
        TOLLGATE_MCP_SESSION_IDLE_SECONDS: '3600',
      });
      gateways.push(gateway);
      await gateway.waitUntilReady();
    });

    it('M8 past TOLLGATE_MCP_MAX_SESSIONS with every session busy, a new agent is refused 429 session_limit; an idle session gives way and resumes later', async () => {
      const one = await agent(gateway);
      const two = await agent(gateway);
      // Both hold their GET stream open (the SDK client opens it just after connecting).
      await waitFor('both sessions to be busy', async () => (await busy(gateway)) === 2);
      const refused = await agent(gateway).then(
        () => undefined,
        (error: unknown) => error as Error & { code?: number },
      );
      expect(refused?.code).toBe(429);
      expect(refused?.message).toMatch(/"reason":"session_limit"/);
      expect(refused?.message).toMatch(/limit of 2 MCP sessions/);
      expect(
        await gatewayMetric(gateway, 'tollgate_mcp_refusals_total{reason="session_limit"}'),
      ).toBe(1);

      const oneId = sessionIdOf(one);
      await one.close();
      await waitFor('its session to be idle', async () => (await busy(gateway)) === 1);
      const three = await agent(gateway);
      expect(await listNote(three)).toBe('a note\n');
      expect(await gatewayMetric(gateway, closed('evicted'))).toBe(1);
      expect(await live(gateway)).toBe(2);

      await three.close();
      await waitFor('its session to be idle', async () => (await busy(gateway)) === 1);
      const oneAgain = await agent(gateway, oneId);
      expect(sessionIdOf(oneAgain)).toBe(oneId);
      expect(await listNote(oneAgain)).toBe('a note\n');
      expect(await listNote(two)).toBe('a note\n');
      expect(await gatewayMetric(gateway, closed('evicted'))).toBe(2);
    }, 30_000);
  });
});
