import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  filesystemServer,
  type GatewayProcess,
  httpAgent,
  startGateway,
  textOf,
  writeGatewayConfig,
} from '../support/mcp-gateway';
import { junkValue, mutate, mutations, nastyString } from './junk.arbitraries';
import { RawHttpClient, type RawRequest } from './raw-http.client';
import { storm as stormEndpoint } from './storm';

/**
 * X6 on the MCP gateway: `/mcp` (POST, GET, DELETE), the health endpoints and `/metrics` each
 * take TOLLGATE_FUZZ_RUNS (default 10 000) generated hostile requests — junk and mutated
 * JSON-RPC (initialize, tools/list, tools/call with junk names and arguments, batches), wrong
 * content types and Accept headers, junk, unknown and foreign session ids, huge bodies, junk
 * methods — and answer each below 500; the gateway stays ready, no call it must not run
 * (`deny`, or `ask` with the approval API unreachable) touches the upstream's directory, and
 * an agent's legitimate call still works afterwards.
 */
const RUNS = Number(process.env.TOLLGATE_FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.TOLLGATE_FUZZ_SEED ?? 20_261_201);
/** Requests kept in flight continuously (storm.ts). */
const CONCURRENCY = 64;
const TIME_LIMIT_MS = Number(process.env.TOLLGATE_FUZZ_TIME_LIMIT_MS ?? 240_000);
/** The gateway's own limit is 4 MiB; a body past it must be refused, not buffered. */
const HUGE_BYTES = 4 * 1024 * 1024 + 1;
/**
 * One buffer for every huge case (the client only reads it): 4 MiB allocated and filled per
 * case was the test process's largest piece of work after GC.
 */
let hugeBody: Buffer | undefined;
const METRICS_TOKEN = randomBytes(24).toString('hex');

type EndpointName = 'mcp-post' | 'mcp-get' | 'mcp-delete' | 'health' | 'metrics' | 'other';

const TOOLS = [
  'fs__write_file',
  'fs__edit_file',
  'fs__create_directory',
  'fs__move_file',
  'fs__read_text_file',
  'fs__list_directory',
  'fs__search_files',
  'nope__tool',
  'fs__',
  '__',
];

/** The messages an agent sends, with the arguments that would change the directory. */
function messages(dir: string): unknown[] {
  const file = join(dir, 'pwned.txt');
  return [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'fuzz', version: '1' },
      },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'fs__write_file', arguments: { path: file, content: 'pwned' } },
    },
    {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: {
        name: 'fs__edit_file',
        arguments: { path: join(dir, 'keep.txt'), edits: [{ oldText: 'stays', newText: 'gone' }] },
      },
    },
    {
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'fs__create_directory', arguments: { path: join(dir, 'sub') } },
    },
    {
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/call',
      params: {
        name: 'fs__move_file',
        arguments: { source: join(dir, 'keep.txt'), destination: file },
      },
    },
    {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'fs__read_text_file',
        arguments: { path: join(dir, 'keep.txt') },
        _meta: { progressToken: 7 },
      },
    },
    { jsonrpc: '2.0', id: 8, method: 'ping' },
  ];
}

/** Header values a client can send at all (no CR, LF or NUL), up to 300 characters. */
const headerSafe = fc
  .oneof(
    fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
    fc.constantFrom('', ' ', 'é', '\t', 'x'.repeat(300)),
  )
  .map((value) => value.replace(/[\r\n\0]/g, '').replace(/[^\t\x20-\x7e\x80-\xff]/g, '?'));

function sessionHeader(sessions: readonly string[]) {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...sessions) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    // Unknown but well-formed: the gateway takes it back as a restarted agent's session.
    { weight: 1, arbitrary: fc.uuid().map((id) => id.toLowerCase()) },
    { weight: 2, arbitrary: headerSafe },
    {
      weight: 1,
      arbitrary: fc.constantFrom(`${sessions[0]} `, sessions[0].toUpperCase(), `${sessions[0]}, x`),
    },
  );
}

const accept = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json, text/event-stream') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/json',
      'text/event-stream',
      '*/*',
      '',
      'text/html;q=0.9, application/*;q=0.1',
    ),
  },
);

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      '',
    ),
  },
);

let nextId = 0;

/**
 * Every string or number request id made unique. Two requests in flight on one session with
 * the same id are a broken client the SDK's transport answers only once (the second stream
 * takes the first's answer, the first waits until it leaves): not what this test is about.
 * Ids of other types stay as generated; they are no valid request id at all.
 */
function uniqueIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(uniqueIds);
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, 'id')) return value;
  const id = (value as { id: unknown }).id;
  nextId += 1;
  if (typeof id === 'number') return { ...value, id: nextId };
  if (typeof id === 'string') return { ...value, id: `${id}#${nextId}` };
  return value;
}

function postCase(dir: string, sessions: readonly string[]): fc.Arbitrary<RawRequest> {
  const templates = messages(dir);
  const one = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...templates) },
    {
      weight: 5,
      arbitrary: fc
        .tuple(fc.constantFrom(...templates), mutations)
        .map(([template, changes]) => mutate(template, changes)),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({ name: fc.oneof(fc.constantFrom(...TOOLS), nastyString), args: junkValue })
        .map(({ name, args }) => ({
          jsonrpc: '2.0',
          id: 9,
          method: 'tools/call',
          params: { name, arguments: args },
        })),
    },
    { weight: 1, arbitrary: junkValue },
  );
  const body = fc.oneof(
    { weight: 40, arbitrary: one.map((value) => JSON.stringify(uniqueIds(value)) ?? 'null') },
    {
      weight: 10,
      arbitrary: fc
        .array(one, { minLength: 0, maxLength: 5 })
        .map((batch) => JSON.stringify(uniqueIds(batch))),
    },
    { weight: 4, arbitrary: nastyString },
    { weight: 4, arbitrary: fc.constantFrom('{', '[', '{"jsonrpc":"2.0",', '', 'null', '[]') },
    { weight: 1, arbitrary: fc.constant('HUGE') },
  );
  return fc
    .record({
      body,
      session: sessionHeader(sessions),
      accept,
      contentType,
      version: fc.constantFrom(undefined, LATEST_PROTOCOL_VERSION, '2024-11-05', '1999-01-01'),
      chunked: fc.boolean(),
    })
    .map((c) => {
      const headers: Record<string, string> = {};
      if (c.contentType !== '') headers['content-type'] = c.contentType;
      if (c.accept !== '') headers.accept = c.accept;
      if (c.session !== undefined) headers['mcp-session-id'] = c.session;
      if (c.version !== undefined) headers['mcp-protocol-version'] = c.version;
      const bytes =
        c.body === 'HUGE'
          ? (hugeBody ??= Buffer.alloc(HUGE_BYTES, 0x20))
          : Buffer.from(c.body, 'utf8');
      return { method: 'POST', path: '/mcp', headers, body: bytes, chunked: c.chunked };
    });
}

function streamCase(
  method: 'GET' | 'DELETE',
  sessions: readonly string[],
): fc.Arbitrary<RawRequest> {
  return fc
    .record({
      session: sessionHeader(sessions),
      accept,
      query: fc.constantFrom('', '?x=1', '?sessionId=%00', '?%zz'),
      lastEvent: fc.option(headerSafe, { freq: 4 }),
    })
    .map((c) => {
      const headers: Record<string, string> = {};
      if (c.accept !== '') headers.accept = c.accept;
      if (c.session !== undefined) headers['mcp-session-id'] = c.session;
      if (c.lastEvent !== null) headers['last-event-id'] = c.lastEvent;
      // A GET that is accepted opens the session's SSE stream, which never ends by itself.
      return {
        method,
        path: `/mcp${c.query}`,
        headers,
        body: Buffer.alloc(0),
        untilHeaders: method === 'GET',
      };
    });
}

function plainCase(paths: readonly string[], withAuth: boolean): fc.Arbitrary<RawRequest> {
  return fc
    .record({
      path: fc.constantFrom(...paths),
      query: fc.oneof(
        fc.constant(''),
        headerSafe.map((junk) => `?${encodeURIComponent(junk)}`),
        fc.constantFrom('?', '?a=%zz', '#x', '?a[b]=1'),
      ),
      method: fc.constantFrom(
        'GET',
        'GET',
        'GET',
        'HEAD',
        'POST',
        'PUT',
        'PATCH',
        'DELETE',
        'OPTIONS',
      ),
      auth: fc.oneof(
        { weight: 3, arbitrary: fc.constant(`Bearer ${METRICS_TOKEN}`) },
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: headerSafe.map((junk) => `Bearer ${junk}`) },
        { weight: 1, arbitrary: headerSafe },
      ),
      body: fc.oneof(
        fc.constant(''),
        nastyString.map((s) => s.slice(0, 2_000)),
      ),
    })
    .map((c) => {
      const headers: Record<string, string> = {};
      if (withAuth && c.auth !== undefined) headers.authorization = c.auth;
      const hasBody = c.method !== 'GET' && c.method !== 'HEAD';
      return {
        method: c.method,
        path: `${c.path}${c.query}`,
        headers,
        body: hasBody ? Buffer.from(c.body, 'utf8') : Buffer.alloc(0),
      };
    });
}

/** Every file under `dir` with its contents: what no refused call may change. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      files[path] = statSync(path).isDirectory()
        ? (walk(path), '<dir>')
        : readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return files;
}

/** Opens a session as an agent would and returns its id. */
async function openSession(gateway: GatewayProcess): Promise<string> {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const init = await fetch(gateway.url('/mcp'), {
    method: 'POST',
    headers,
    body: JSON.stringify(messages('/')[0]),
  });
  await init.text();
  const id = init.headers.get('mcp-session-id');
  if (init.status !== 200 || id === null) throw new Error(`initialize answered ${init.status}`);
  const initialized = await fetch(gateway.url('/mcp'), {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': id },
    body: JSON.stringify(messages('/')[1]),
  });
  await initialized.text();
  return id;
}

describe('X6 — the MCP gateway under hostile HTTP input (process)', () => {
  let dir: string;
  let before: Record<string, string>;
  let gateway: GatewayProcess;
  let client: RawHttpClient;
  let sessions: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-fs-'));
    writeFileSync(join(dir, 'keep.txt'), 'stays put');
    before = snapshot(dir);
    const config = writeGatewayConfig({
      // Nothing listens here: an `ask` tool can never be approved.
      approvalApi: { url: 'http://127.0.0.1:1', key: 'fuzz-key' },
      holdSeconds: 1,
      servers: { fs: filesystemServer(dir) },
      policy: {
        default: 'deny',
        readOnly: 'allow',
        tools: { fs__write_file: 'ask', fs__edit_file: 'ask', fs__move_file: 'deny' },
      },
    });
    gateway = await startGateway(config, {
      LOG_LEVEL: 'warn',
      TOLLGATE_METRICS_TOKEN: METRICS_TOKEN,
    });
    await gateway.waitUntilReady();
    sessions = [await openSession(gateway), await openSession(gateway), randomUUID()];
    client = new RawHttpClient(gateway.url('/'), CONCURRENCY);
  }, 60_000);

  afterAll(async () => {
    client?.close();
    await gateway?.stop();
  });

  /** Sends RUNS generated requests to one endpoint; every answer must be below 500. */
  async function storm(name: EndpointName, cases: fc.Arbitrary<RawRequest>): Promise<void> {
    const { sent, histogram, seconds } = await stormEndpoint(client, name, cases, {
      runs: RUNS,
      seed: SEED,
      concurrency: CONCURRENCY,
      timeLimitMs: TIME_LIMIT_MS,
      describe: (request, status, answer) =>
        `${status} ${request.method} ${request.path.slice(0, 80)} ${JSON.stringify(request.headers).slice(0, 200)} ${request.body.subarray(0, 200).toString()}: ${answer.slice(0, 200)}`,
      context: () => gateway.output().slice(-2_000),
    });
    console.log(
      `X6 mcp-gateway ${name}: ${sent} requests in ${seconds.toFixed(1)} s, statuses ${JSON.stringify(histogram)}`,
    );
    // An answer of 500 or more, or none, has already failed the storm with the bad answers.
    expect(sent).toBeGreaterThanOrEqual(RUNS);
  }

  const cases = (name: EndpointName): fc.Arbitrary<RawRequest> => {
    switch (name) {
      case 'mcp-post':
        return postCase(dir, sessions);
      case 'mcp-get':
        return streamCase('GET', sessions);
      case 'mcp-delete':
        return streamCase('DELETE', sessions);
      case 'health':
        return plainCase(['/health/live', '/health/ready'], false);
      case 'metrics':
        return plainCase(['/metrics'], true);
      case 'other':
        return plainCase(['/', '/mcp/', '/MCP', '/mcp/../metrics', '/health', '/mcp//', '*'], true);
    }
  };

  it.each<EndpointName>(['mcp-post', 'mcp-get', 'mcp-delete', 'health', 'metrics', 'other'])(
    `X6 mcp-gateway %s answers ${RUNS} generated hostile requests below 500`,
    (name) => storm(name, cases(name)),
    TIME_LIMIT_MS + 60_000,
  );

  it('X6 after the storm the gateway is ready, the directory is unchanged, and an agent still works', async () => {
    expect(gateway.child.exitCode).toBeNull();
    await gateway.waitUntilReady();
    expect(snapshot(dir)).toEqual(before);
    // The storm did reach the policy with calls it refused, held and let through.
    const metrics = await (
      await fetch(gateway.url('/metrics'), {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      })
    ).text();
    expect(metrics).toMatch(/tollgate_mcp_calls_total\{verdict="deny",outcome="refused"\} [1-9]/);
    expect(metrics).toMatch(/tollgate_mcp_calls_total\{verdict="ask",outcome="error"\} [1-9]/);
    expect(metrics).toMatch(
      /tollgate_mcp_calls_total\{verdict="allow",outcome="(ok|error)"\} [1-9]/,
    );
    const agent: Client = await httpAgent(gateway);
    try {
      const read = await agent.callTool({
        name: 'fs__read_text_file',
        arguments: { path: join(dir, 'keep.txt') },
      });
      expect(textOf(read)).toBe('stays put');
      const write = await agent.callTool({
        name: 'fs__write_file',
        arguments: { path: join(dir, 'pwned.txt'), content: 'pwned' },
      });
      expect(write.isError).toBe(true);
    } finally {
      await agent.close();
    }
    expect(snapshot(dir)).toEqual(before);
  });
});
