import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  faultServer,
  type GatewayProcess,
  httpAgent,
  startGateway,
  textOf,
  writeGatewayConfig,
} from '../support/mcp-gateway';
import { waitFor } from '../support/wait-for';

/** Time the gateway's answers are allowed: well inside an MCP client's 60 s. */
const CALL_TIMEOUT_S = 2;

describe('MCP gateway: upstream faults are visible (M3)', () => {
  let gateway: GatewayProcess;
  let agent: Client;

  const upstreamState = async (name: string) => (await gateway.ready()).body.upstreams?.[name];
  const echoPid = async (): Promise<string | false> => {
    const result = await agent.callTool({ name: 'fault__echo', arguments: { text: 'x' } });
    return result.isError ? false : textOf(result).split(':')[2];
  };

  beforeAll(async () => {
    const config = writeGatewayConfig({
      servers: {
        fault: faultServer(),
        broken: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
      },
      callTimeoutSeconds: CALL_TIMEOUT_S,
      // Pings answered within a second: slack enough for a busy CI machine, quick for the test.
      pingSeconds: 1,
      policy: { default: 'allow' },
    });
    gateway = await startGateway(config);
    await waitFor(
      'the fault upstream to be up',
      async () => (await upstreamState('fault'))?.status === 'up',
    );
    agent = await httpAgent(gateway);
  });

  afterAll(async () => {
    await agent?.close();
    await gateway?.stop();
  });

  it('M3 names an upstream that fails to start in /health/ready and in the tool error, and keeps restarting it', async () => {
    const ready = await gateway.ready();
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toEqual({ 'upstream:fault': true, 'upstream:broken': false });
    expect(ready.body.upstreams.broken).toMatchObject({
      lastError: expect.stringMatching(/failed to start/),
    });
    const started = Date.now();
    const result = await agent.callTool({ name: 'broken__anything', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/MCP server "broken" is unavailable \(failed to start/);
    expect(Date.now() - started).toBeLessThan(CALL_TIMEOUT_S * 1000);
    await waitFor(
      'a restart with backoff',
      async () => (await upstreamState('broken'))?.restarts >= 2,
    );
  });

  it('M3 an upstream killed mid-call: a clear tool error, readiness names it, the next call works after its restart', async () => {
    const before = await echoPid();
    expect(before).toBeTruthy();
    const result = await agent.callTool({ name: 'fault__die', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/MCP server "fault" failed during the call/);
    const state = await upstreamState('fault');
    expect(state.lastError).toBe('the server process exited');
    const after = await waitFor('the restarted upstream to answer', echoPid);
    expect(after).not.toBe(before);
    expect((await upstreamState('fault')).restarts).toBeGreaterThanOrEqual(1);
  });

  it('M3 a call the upstream never answers ends in a tool error naming it within the call timeout', async () => {
    const started = Date.now();
    const result = await agent.callTool({ name: 'fault__hang', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      `MCP server "fault" did not answer: no answer within ${CALL_TIMEOUT_S} s`,
    );
    expect(Date.now() - started).toBeLessThan(CALL_TIMEOUT_S * 1000 + 2_000);
  });

  it('M3 a hung upstream fails its pings, is named in /health/ready and restarted', async () => {
    const before = await echoPid();
    const wedged = agent.callTool({ name: 'fault__wedge', arguments: {} });
    await waitFor('readiness to name the hung upstream', async () =>
      (await upstreamState('fault'))?.lastError?.startsWith('did not answer a ping'),
    );
    expect((await wedged).isError).toBe(true);
    const after = await waitFor('the restarted upstream to answer', echoPid);
    expect(after).not.toBe(before);
  });
});
