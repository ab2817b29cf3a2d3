import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/free-port';
import {
  FAULT_SERVER,
  filesystemServer,
  GATEWAY_ENTRY,
  type GatewayProcess,
  httpAgent,
  startGateway,
  stdioAgent,
  textOf,
  writeGatewayConfig,
} from '../support/mcp-gateway';
import { waitFor } from '../support/wait-for';

/** The filesystem server's own view, straight over stdio: what the gateway must pass on. */
async function directFilesystem(dir: string): Promise<Client> {
  const client = new Client({ name: 'reference', version: '1.0.0' });
  const server = filesystemServer(dir);
  await client.connect(new StdioClientTransport({ ...server, stderr: 'ignore' }));
  return client;
}

describe('MCP gateway: proxying upstream servers', () => {
  let dir: string;
  let gateway: GatewayProcess;
  let agent: Client;
  let direct: Client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-fs-'));
    writeFileSync(join(dir, 'hello.txt'), 'hello from the workspace\n');
    const config = writeGatewayConfig({
      agentName: 'm1-agent',
      servers: { fs: filesystemServer(dir) },
      policy: { default: 'allow' },
    });
    gateway = await startGateway(config);
    await gateway.waitUntilReady();
    agent = await httpAgent(gateway);
    direct = await directFilesystem(dir);
  });

  afterAll(async () => {
    await agent?.close();
    await direct?.close();
    await gateway?.stop();
  });

  it('M1 lists every upstream tool as <server>__<tool> with its own schema and annotations', async () => {
    const upstream = (await direct.listTools()).tools;
    const listed = (await agent.listTools()).tools;
    expect(upstream.length).toBeGreaterThan(5);
    expect(listed.map((t) => t.name).sort()).toEqual(upstream.map((t) => `fs__${t.name}`).sort());
    for (const tool of upstream) {
      const through = listed.find((t) => t.name === `fs__${tool.name}`);
      expect(through).toEqual({ ...tool, name: `fs__${tool.name}` });
    }
    expect(listed.find((t) => t.name === 'fs__read_text_file')?.annotations?.readOnlyHint).toBe(
      true,
    );
  });

  it('M1 forwards a call over streamable HTTP and returns the upstream result unchanged', async () => {
    const written = await agent.callTool({
      name: 'fs__write_file',
      arguments: { path: join(dir, 'note.txt'), content: 'written through the gateway' },
    });
    expect(written.isError).toBeFalsy();
    expect(readFileSync(join(dir, 'note.txt'), 'utf8')).toBe('written through the gateway');
    const args = { path: join(dir, 'hello.txt') };
    const through = await agent.callTool({ name: 'fs__read_text_file', arguments: args });
    const straight = await direct.callTool({ name: 'read_text_file', arguments: args });
    expect(through).toEqual(straight);
    expect(textOf(through)).toBe('hello from the workspace\n');
  });

  it('M1 answers an unknown tool with an MCP error', async () => {
    await expect(agent.callTool({ name: 'nope__tool', arguments: {} })).rejects.toThrow(
      /Unknown tool/,
    );
  });

  it('M1 serves /health/live, /health/ready and /metrics like every Tollgate service', async () => {
    expect((await fetch(gateway.url('/health/live'))).status).toBe(200);
    const ready = await gateway.ready();
    expect(ready).toEqual({
      status: 200,
      body: expect.objectContaining({
        status: 'ready',
        checks: { 'upstream:fs': true },
        upstreams: { fs: { status: 'up', lastError: null, restarts: 0 } },
      }),
    });
    const metrics = await (await fetch(gateway.url('/metrics'))).text();
    expect(metrics).toContain('tollgate_mcp_upstream_up{upstream="fs"} 1');
    expect(metrics).toMatch(/tollgate_mcp_calls_total\{verdict="allow",outcome="ok"\} [1-9]/);
  });

  it('M1 serves the same tools over stdio with --stdio, logging to stderr only', async () => {
    const config = writeGatewayConfig({
      servers: { fs: filesystemServer(dir) },
      policy: { default: 'allow' },
    });
    const { client, stderr } = await stdioAgent(config);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('fs__list_directory');
      const listing = await client.callTool({
        name: 'fs__list_directory',
        arguments: { path: dir },
      });
      expect(textOf(listing)).toContain('[FILE] hello.txt');
      await waitFor('the upstream-up log line on stderr', () => stderr().includes('upstream up'));
    } finally {
      await client.close();
    }
  });
});

describe('MCP gateway: configuration', () => {
  it('M1 reaches a streamable HTTP upstream with ${VAR} headers and never logs their value', async () => {
    const token = `tok-${Date.now()}-secret`;
    const port = await freePort();
    const upstream = spawn(process.execPath, [FAULT_SERVER, '--http', String(port)], {
      env: { PATH: process.env.PATH, FAULT_TOKEN: token },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const config = writeGatewayConfig(
      {},
      [
        'servers:',
        `  remote: { url: "http://127.0.0.1:${port}/mcp", headers: { Authorization: "Bearer \${REMOTE_TOKEN}" } }`,
        'policy: { default: allow }',
      ].join('\n'),
    );
    let gateway: GatewayProcess | undefined;
    try {
      await waitFor('the HTTP upstream to listen', () =>
        upstream.stdout?.read()?.toString().includes('listening'),
      );
      gateway = await startGateway(config, { REMOTE_TOKEN: token, LOG_LEVEL: 'trace' });
      await gateway.waitUntilReady();
      const agent = await httpAgent(gateway);
      const echoed = await agent.callTool({
        name: 'remote__echo',
        arguments: { text: 'via http' },
      });
      expect(textOf(echoed)).toMatch(/^echo:via http:/);
      await agent.close();
      expect(gateway.output()).toContain('upstream up');
      expect(gateway.output()).not.toContain(token);
    } finally {
      await gateway?.stop();
      upstream.kill();
    }
  });

  it('M1 makes thousands of calls to a streamable HTTP upstream without piling abort listeners on one signal', async () => {
    const token = `tok-${Date.now()}-many`;
    const port = await freePort();
    const upstream = spawn(process.execPath, [FAULT_SERVER, '--http', String(port)], {
      env: { PATH: process.env.PATH, FAULT_TOKEN: token },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const config = writeGatewayConfig(
      {},
      [
        'servers:',
        `  remote: { url: "http://127.0.0.1:${port}/mcp", headers: { Authorization: "Bearer \${REMOTE_TOKEN}" } }`,
        'policy: { default: allow }',
      ].join('\n'),
    );
    let agent: Client | undefined;
    try {
      await waitFor('the HTTP upstream to listen', () =>
        upstream.stdout?.read()?.toString().includes('listening'),
      );
      // Over stdio, so the gateway is the only HTTP client in play.
      const started = await stdioAgent(config, { REMOTE_TOKEN: token });
      agent = started.client;
      const through = agent;
      // The SDK's HTTP client hands every fetch its one long-lived signal, and undici lets go
      // of a request's listener only once the request is collected: past 1,500 the gateway
      // printed a MaxListenersExceededWarning with every call.
      let next = 0;
      const caller = async () => {
        while (next < 4_000) {
          next += 1;
          const result = await through.callTool({ name: 'remote__echo', arguments: { text: 'n' } });
          expect(result.isError).toBeFalsy();
        }
      };
      await Promise.all(Array.from({ length: 16 }, caller));
      expect(started.stderr()).not.toContain('MaxListenersExceededWarning');
    } finally {
      await agent?.close();
      upstream.kill();
    }
  }, 120_000);

  it('M1 refuses to start when a ${VAR} is unset, naming the variable', async () => {
    const config = writeGatewayConfig(
      {},
      'servers:\n  remote: { url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer ${UNSET_TOKEN_M1}" } }\npolicy: { default: allow }\n',
    );
    const child = spawn(process.execPath, [GATEWAY_ENTRY, '--config', config], {
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('servers.remote ${UNSET_TOKEN_M1}: is not set in the environment');
  });
});
