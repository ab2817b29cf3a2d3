import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApprovalApiSystem, approvedBy } from '../support/approval-api.fixture';
import { freePort } from '../support/free-port';
import {
  filesystemServer,
  type GatewayProcess,
  httpAgent,
  startGateway,
  textOf,
  writeGatewayConfig,
} from '../support/mcp-gateway';
import { waitFor } from '../support/wait-for';

const HOLD_S = 3;

/**
 * Calls held on the real approval-api (M2, M3): the hold ends with the approval's id, the
 * identical call waits on the same approval, and a gateway SIGKILL loses nothing. The decision
 * arrives on the decision stream as the session service publishes it.
 */
describe('MCP gateway: calls held on the approval API', () => {
  let system: ApprovalApiSystem;
  let key: string;
  let dir: string;
  let config: string;
  let port: number;
  let gateway: GatewayProcess;
  let agent: Client;

  const approvalIn = (text: string | undefined) => /(apr_[0-9a-z]+)/.exec(text ?? '')?.[1];
  const approvalsFor = async (path: string) =>
    (
      await system.query<{ id: string; status: string }>(
        `SELECT id, status FROM approvals WHERE tool = 'fs__write_file' AND command->'arguments'->>'path' = $1`,
        [path],
      )
    ).map((row) => row.id);
  const start = async () => {
    gateway = await startGateway(
      config,
      { APPROVAL_URL: system.replicas[0].url(''), TOLLGATE_API_KEY: key },
      port,
    );
    await gateway.waitUntilReady();
  };
  /** Calls and resolves, once the call is held, with the approval its progress names. */
  const held = (client: Client, call: { name: string; arguments: Record<string, unknown> }) => {
    const progress: Progress[] = [];
    const result = client
      .callTool(call, undefined, { onprogress: (p) => progress.push(p) })
      .catch((error: unknown) => error);
    const approval = waitFor('a progress notification naming the approval', () =>
      approvalIn(progress[0]?.message),
    );
    return { result, approval, progress };
  };

  beforeAll(async () => {
    system = await ApprovalApiSystem.start('m2held');
    key = (await system.createClient({ name: 'mcp gateway' })).key;
    dir = mkdtempSync(join(tmpdir(), 'tollgate-fs-'));
    config = writeGatewayConfig(
      {},
      [
        'approvalApi: { url: "${APPROVAL_URL}", key: "${TOLLGATE_API_KEY}" }',
        'agentName: m2-desktop',
        `holdSeconds: ${HOLD_S}`,
        'progressSeconds: 1',
        'servers:',
        `  fs: { command: ${JSON.stringify(process.execPath)}, args: ${JSON.stringify(filesystemServer(dir).args)} }`,
        'policy: { default: ask, readOnly: allow }',
      ].join('\n'),
    );
    port = await freePort();
    await start();
    agent = await httpAgent(gateway);
  }, 60_000);

  afterAll(async () => {
    await agent?.close().catch(() => undefined);
    await gateway?.stop();
    await system?.stop();
  });

  it('M2 a call held past holdSeconds answers isError naming the approval, with progress meanwhile; the identical call waits on that approval and runs once approved, once', async () => {
    const path = join(dir, 'held.txt');
    const call = { name: 'fs__write_file', arguments: { path, content: 'once' } };
    const first = held(agent, call);
    const id = await first.approval;
    const answer = (await first.result) as { isError?: boolean };
    expect(answer.isError).toBe(true);
    expect(textOf(answer)).toBe(
      `Approval ${id} is still waiting for a decision in chat after ${HOLD_S} s; the tool has not run. ` +
        'Call this tool again with the same arguments to keep waiting on it.',
    );
    expect(first.progress[0]).toMatchObject({
      progress: 1,
      message: `Waiting for approval ${id} in chat`,
    });
    const request = await system.publishedRequest(id);
    expect(request).toMatchObject({
      tool: 'fs__write_file',
      arguments: call.arguments,
      caller: { name: 'm2-desktop' },
    });
    expect(existsSync(path)).toBe(false);

    const second = held(agent, call);
    expect(await second.approval).toBe(id);
    await system.decide(request, 'approved', approvedBy('U_ALICE', 'Alice'));
    const result = (await second.result) as { isError?: boolean };
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/^Successfully wrote to /);
    expect(readFileSync(path, 'utf8')).toBe('once');
    expect(await approvalsFor(path)).toEqual([id]);

    // Used up: the identical call again is a new request, never a second run.
    rmSync(path);
    const third = held(agent, call);
    expect(await third.approval).not.toBe(id);
    expect(((await third.result) as { isError?: boolean }).isError).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(await approvalsFor(path)).toHaveLength(2);
  });

  it('M3 a gateway SIGKILLed while a call is held loses nothing: restarted, the same call in the same MCP session finds the pending approval', async () => {
    const path = join(dir, 'restart.txt');
    const call = { name: 'fs__write_file', arguments: { path, content: 'after restart' } };
    const sessionId = agent.transport?.sessionId;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const before = held(agent, call);
    const id = await before.approval;
    await gateway.stop('SIGKILL');
    // The client would retry its stream for a while; closing it ends the call it had open.
    await agent.close().catch(() => undefined);
    expect(await before.result).toBeInstanceOf(Error);

    await start();
    agent = await httpAgent(gateway, sessionId);
    const after = held(agent, call);
    expect(await after.approval).toBe(id);
    await system.decide(
      await system.publishedRequest(id),
      'approved',
      approvedBy('U_ALICE', 'Alice'),
    );
    const result = (await after.result) as { isError?: boolean };
    expect(result.isError).toBeFalsy();
    expect(readFileSync(path, 'utf8')).toBe('after restart');
    expect(await approvalsFor(path)).toEqual([id]);
  });
});
