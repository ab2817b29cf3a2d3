import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from './free-port';
import { testNodeArgs } from './service-process';
import { waitFor } from './wait-for';

const ROOT = join(__dirname, '..', '..');
export const GATEWAY_ENTRY = join(ROOT, 'dist', 'apps', 'mcp-gateway', 'main.js');
/** The published filesystem server, started as its package's bin would start it. */
export const FILESYSTEM_SERVER = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-filesystem',
  'dist',
  'index.js',
);
export const FAULT_SERVER = join(ROOT, 'test', 'support', 'mcp-fault-server.mjs');

export function filesystemServer(dir: string): { command: string; args: string[] } {
  return { command: process.execPath, args: [FILESYSTEM_SERVER, dir] };
}

export function faultServer(): { command: string; args: string[] } {
  return { command: process.execPath, args: [FAULT_SERVER] };
}

/** Writes a gateway config (YAML, as an operator would) into a fresh temp dir. */
export function writeGatewayConfig(config: Record<string, unknown>, raw = ''): string {
  const file = join(mkdtempSync(join(tmpdir(), 'tollgate-mcp-')), 'gateway.yaml');
  writeFileSync(file, raw === '' ? stringify(config) : raw);
  return file;
}

/** The /health/ready body: checks by name, and each upstream's state. */
export interface Readiness {
  status: string;
  checks: Record<string, boolean>;
  upstreams: Record<string, { status: string; lastError: string | null; restarts: number }>;
}

export interface GatewayProcess {
  readonly port: number;
  readonly child: ChildProcess;
  output(): string;
  url(path: string): string;
  ready(): Promise<{ status: number; body: Readiness }>;
  waitUntilReady(timeoutMs?: number): Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startGateway(
  configFile: string,
  env: Record<string, string | undefined> = {},
  port?: number,
): Promise<GatewayProcess> {
  if (!existsSync(GATEWAY_ENTRY))
    throw new Error(`${GATEWAY_ENTRY} is missing: run \`npm run build\``);
  const chosen = port ?? (await freePort());
  const child = spawn(
    process.execPath,
    [...testNodeArgs(), GATEWAY_ENTRY, '--config', configFile],
    {
      cwd: ROOT,
      env: { PATH: process.env.PATH, LOG_LEVEL: 'debug', ...env, PORT: String(chosen) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = (path: string) => `http://127.0.0.1:${chosen}${path}`;
  const ready = async () => {
    const response = await fetch(url('/health/ready'));
    return { status: response.status, body: (await response.json()) as Readiness };
  };
  return {
    port: chosen,
    child,
    output: () => printed,
    url,
    ready,
    async waitUntilReady(timeoutMs = 15_000) {
      await waitFor(
        'the gateway to be ready',
        async () => {
          if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${printed}`);
          const { status, body } = await ready();
          if (status !== 200) throw new Error(JSON.stringify(body));
          return true;
        },
        { timeoutMs },
      );
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** The SDK's own client as the agent, over streamable HTTP (with the gateway's token, if any). */
export async function httpAgent(
  gateway: GatewayProcess,
  sessionId?: string,
  token?: string,
): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.url('/mcp')), {
      ...(sessionId === undefined ? {} : { sessionId }),
      ...(token === undefined
        ? {}
        : { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    }),
  );
  return client;
}

/** The MCP session id an HTTP agent holds. */
export function sessionIdOf(client: Client): string | undefined {
  return (client.transport as StreamableHTTPClientTransport | undefined)?.sessionId;
}

/** One sample of the gateway's /metrics (from loopback, as no metrics token is set), or 0. */
export async function gatewayMetric(gateway: GatewayProcess, series: string): Promise<number> {
  const text = await (await fetch(gateway.url('/metrics'))).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** The SDK's own client as the agent, starting the gateway itself with `--stdio`. */
export async function stdioAgent(
  configFile: string,
  env: Record<string, string> = {},
): Promise<{ client: Client; stderr: () => string }> {
  if (!existsSync(GATEWAY_ENTRY))
    throw new Error(`${GATEWAY_ENTRY} is missing: run \`npm run build\``);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GATEWAY_ENTRY, '--stdio', '--config', configFile],
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'debug', ...env },
    cwd: ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** The text of a tool result's first content block. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}
