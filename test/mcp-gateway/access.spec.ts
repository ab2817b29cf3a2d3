import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  filesystemServer,
  gatewayMetric,
  type GatewayProcess,
  httpAgent,
  startGateway,
  stdioAgent,
  textOf,
  writeGatewayConfig,
} from '../support/mcp-gateway';
import { RawMcpSession } from '../support/mcp-raw-session';
import { waitFor } from '../support/wait-for';

const TOKEN = randomBytes(24).toString('base64url');

/**
 * M10: `/mcp` takes a bearer token from TOLLGATE_MCP_GATEWAY_TOKEN. Without one the gateway
 * serves loopback only: it refuses to listen anywhere else, naming the variable.
 */
describe('MCP gateway: who may use /mcp (M10)', () => {
  let dir: string;
  let config: string;
  const gateways: GatewayProcess[] = [];
  const agents: Client[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-fs-'));
    writeFileSync(join(dir, 'note.txt'), 'behind a token\n');
    config = writeGatewayConfig({
      servers: { fs: filesystemServer(dir) },
      policy: { default: 'allow' },
    });
  });

  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close().catch(() => undefined)));
    await Promise.all(gateways.map((g) => g.stop()));
  });

  it('M10 with TOLLGATE_MCP_GATEWAY_TOKEN set, /mcp answers 401 with a reason without the token or with another, and serves the SDK client that sends it', async () => {
    const gateway = await startGateway(config, { TOLLGATE_MCP_GATEWAY_TOKEN: TOKEN });
    gateways.push(gateway);
    await gateway.waitUntilReady();

    const missing = await RawMcpSession.open(gateway.url('/mcp')).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(missing)).toMatch(/initialize answered 401/);
    const bare = await fetch(gateway.url('/mcp'), { method: 'POST', body: '{}' });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe('Bearer realm="tollgate-mcp-gateway"');
    expect(await bare.json()).toMatchObject({
      jsonrpc: '2.0',
      error: { data: { reason: 'mcp_token_required' } },
      id: null,
    });
    const wrong = await fetch(gateway.url('/mcp'), {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}x` },
      body: '{}',
    });
    expect(wrong.status).toBe(401);
    const wrongBody = await wrong.text();
    expect(JSON.parse(wrongBody)).toMatchObject({ error: { data: { reason: 'bad_mcp_token' } } });
    expect(wrongBody).not.toContain(TOKEN);

    const agent = await httpAgent(gateway, undefined, TOKEN);
    agents.push(agent);
    const result = await agent.callTool({
      name: 'fs__read_text_file',
      arguments: { path: join(dir, 'note.txt') },
    });
    expect(textOf(result)).toBe('behind a token\n');
    expect((await fetch(gateway.url('/health/live'))).status).toBe(200);
    expect(
      await gatewayMetric(gateway, 'tollgate_mcp_refusals_total{reason="mcp_token_required"}'),
    ).toBe(2);
    expect(
      await gatewayMetric(gateway, 'tollgate_mcp_refusals_total{reason="bad_mcp_token"}'),
    ).toBe(1);
    expect(gateway.output()).not.toContain(TOKEN);
  });

  it('M10 without a token the gateway refuses to listen on a non-loopback HOST, naming the variable; with one it listens; over stdio it needs none', async () => {
    const open = await startGateway(config, { HOST: '0.0.0.0' });
    gateways.push(open);
    await waitFor('the gateway to refuse to start', () => open.child.exitCode !== null);
    expect(open.child.exitCode).toBe(1);
    expect(open.output()).toMatch(
      /TOLLGATE_MCP_GATEWAY_TOKEN.*is required when HOST \(0\.0\.0\.0\) is not a loopback address/,
    );

    const guarded = await startGateway(config, {
      HOST: '0.0.0.0',
      TOLLGATE_MCP_GATEWAY_TOKEN: TOKEN,
    });
    gateways.push(guarded);
    await guarded.waitUntilReady();

    const { client } = await stdioAgent(config, { HOST: '0.0.0.0' });
    agents.push(client);
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).toContain('fs__read_text_file');
  });
});
