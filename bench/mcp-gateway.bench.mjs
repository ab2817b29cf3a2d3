// MCP gateway figures (issue 21). Overhead per allowed call: the same `read_text_file` call
// made straight to the published filesystem server (stdio) and through the gateway
// (streamable HTTP, policy allow), p50/p99 at concurrency 1 and 16; target ≤ 2 ms p50 added.
// Each path has one agent client and one upstream connection (a stdio pipe to one filesystem
// server process), so the comparison is like for like.
// The target rows use the lightest honest clients (bench/light-mcp-clients.mjs): a real
// initialize handshake, then bare JSON-RPC — newline-delimited over stdio, POSTs with the
// session id on a keep-alive node:http Agent. A floor does the same work with the lightest
// tools: on a machine with fewer cores than busy processes, a closed loop of 16 callers waits
// for the CPU all of them use per call (Little's law), so at concurrency 16 the added p50 is
// about 16 × the added CPU per call divided by the cores, the agent's included. The SDK's
// Client spends more CPU on HTTP (web fetch, schema checks) than the gateway does per call, so
// with it the figure measured the agent's HTTP client more than the gateway. Its rows are
// printed too, labelled, for what an SDK-built agent sees. Beside the latencies: the CPU each
// process spent per call (agent, gateway, upstream), and the same calls through the gateway
// over stdio, which leaves out HTTP on both sides, and through a floor (floor-mcp-proxy.mjs):
// the lightest node:http-to-stdio proxy of the same upstream, with nothing of the gateway's on
// top, so the gateway's added p50 can be read against what HTTP itself costs on the machine.
// Held calls per GiB of RSS: calls to an `ask` tool held open by the gateway, measured from
// the gateway process's RSS before and with them held. The approval API is a bare node:http
// stub in this process that never decides (the gateway's side is what is measured). Runs the
// built gateway (`npm run build` first). Prints figures; asserts nothing.
// Usage: node bench/mcp-gateway.bench.mjs [--calls 2000 --held 2000 --warm-up 2000] [--gateway <main.js>]; `--smoke` runs tiny
// counts (a check that the bench still works, not a measurement).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { lightHttpClient, lightStdioClient } from './light-mcp-clients.mjs';

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname, '..');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const {
  StreamableHTTPClientTransport,
} = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const SMOKE = process.argv.includes('--smoke');
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const CALLS = option('calls', SMOKE ? 40 : 2_000);
const HELD = option('held', SMOKE ? 20 : 2_000);
const WARM_UP = option('warm-up', SMOKE ? 4 : CALLS);
for (const [name, value] of [
  ['calls', CALLS],
  ['held', HELD],
  ['warm-up', WARM_UP],
]) {
  if (!Number.isInteger(value) || value < (name === 'warm-up' ? 0 : 1) || value > 100_000) {
    console.error(`bench:mcp-gateway: --${name} must be a whole number up to 100000`);
    process.exit(2);
  }
}
const FS_SERVER = join(
  root,
  'node_modules',
  '@modelcontextprotocol',
  'server-filesystem',
  'dist',
  'index.js',
);
// `--gateway <main.js>` measures another build of the gateway (an A/B against an older commit).
const gatewayAt = process.argv.indexOf('--gateway');
const GATEWAY =
  gatewayAt === -1
    ? join(root, 'dist', 'apps', 'mcp-gateway', 'main.js')
    : process.argv[gatewayAt + 1];

const dir = mkdtempSync(join(tmpdir(), 'tollgate-mcp-bench-'));
const file = join(dir, 'note.txt');
writeFileSync(file, 'a short note\n');

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Warms up, then makes CALLS calls from `concurrency` callers; latencies and CPU per call. */
async function measure(client, name, concurrency, pids) {
  const samples = [];
  let next = 0;
  // Warm up at the measured concurrency: V8 optimises each process's hot path over its first
  // thousands of calls on background threads that take the same two cores, so a warm-up of 20
  // sequential calls left the compiler inside the figures (c16 added p50 3.2-4.7 ms after it,
  // 2.1-2.5 ms after 2,000; the floor 3.0-3.8 against 2.0-2.1).
  let warmLeft = WARM_UP;
  const warmer = async () => {
    while (warmLeft > 0) {
      warmLeft -= 1;
      await client.callTool({ name, arguments: { path: file } });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, warmer));
  const cpuBefore = pids.map(cpuMs);
  const ownBefore = process.cpuUsage();
  const worker = async () => {
    while (next < CALLS) {
      next += 1;
      const started = performance.now();
      const result = await client.callTool({ name, arguments: { path: file } });
      samples.push(performance.now() - started);
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const own = process.cpuUsage(ownBefore);
  samples.sort((a, b) => a - b);
  return {
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    agentCpu: (own.user + own.system) / 1000 / CALLS,
    cpu: pids.map((pid, i) => (cpuMs(pid) - cpuBefore[i]) / CALLS),
  };
}

function startGateway(config, port) {
  const configFile = join(dir, `gateway-${port}.yaml`);
  writeFileSync(configFile, config);
  const child = spawn(process.execPath, [GATEWAY, '--config', configFile], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      TOLLGATE_API_KEY: 'tg_bench',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

async function untilReady(port) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`gateway on ${port} not ready`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** CPU time (user + system) a process has used, in ms. */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};

const rssMb = (pid) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

// The agent's HTTP client gets the gateway's own fix for the SDK client's one shared
// AbortSignal (libs/mcp-upstream/src/own-signal-fetch.ts): without it every call past 1,500
// also prints a MaxListenersExceededWarning in this process, agent CPU counted as the gateway's.
const { ownSignalFetch } = require(
  join(root, 'dist', 'libs', 'mcp-upstream', 'own-signal-fetch.js'),
);

async function httpClient(port) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      fetch: ownSignalFetch,
    }),
  );
  return client;
}

/** The process ids of a process's children (the gateway's upstream servers). */
const childrenOf = (pid) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).map(Number);

const children = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

// 1. Overhead per allowed call.
const allowConfig = `servers:\n  fs: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FS_SERVER)}, ${JSON.stringify(dir)}] }\npolicy: { default: allow }\n`;
const allowPort = await freePort();
const allowGateway = startGateway(allowConfig, allowPort);
children.push(allowGateway);
await untilReady(allowPort);
const [allowUpstream] = childrenOf(allowGateway.pid);
// The floor: the lightest HTTP-to-stdio proxy of the same upstream (bench/floor-mcp-proxy.mjs).
const floorPort = await freePort();
const floor = spawn(
  process.execPath,
  [
    join(root, 'bench', 'floor-mcp-proxy.mjs'),
    String(floorPort),
    'fs__',
    process.execPath,
    FS_SERVER,
    dir,
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
children.push(floor);
await untilReady(floorPort);
const [floorUpstream] = childrenOf(floor.pid);
writeFileSync(join(dir, 'gateway-stdio.yaml'), allowConfig);
const stdioGatewayArgs = [GATEWAY, '--stdio', '--config', join(dir, 'gateway-stdio.yaml')];
const stdioGatewayEnv = { PATH: process.env.PATH, LOG_LEVEL: 'warn' };

// The light clients (the target rows): one connection each to the filesystem server, to the
// gateway over HTTP (a fresh session per run) and to the gateway over stdio.
const direct = await lightStdioClient(process.execPath, [FS_SERVER, dir], { stderr: 'ignore' });
const throughStdio = await lightStdioClient(process.execPath, stdioGatewayArgs, {
  env: stdioGatewayEnv,
});
const [stdioUpstream] = childrenOf(throughStdio.pid);
// The SDK's Client on the same paths, for comparison with what an SDK-built agent sees.
const sdkDirectTransport = new StdioClientTransport({
  command: process.execPath,
  args: [FS_SERVER, dir],
  stderr: 'ignore',
});
const sdkDirect = new Client({ name: 'bench', version: '1.0.0' });
await sdkDirect.connect(sdkDirectTransport);

const ms = (value) => `${value.toFixed(2)} ms`;
const added = (through, straight) =>
  `added p50 ${ms(through.p50 - straight.p50)}, p99 ${ms(through.p99 - straight.p99)}`;
console.log(
  `allowed call overhead (${CALLS} calls of fs read_text_file each, after ${WARM_UP} at the same concurrency to warm up; one agent client and one upstream connection on each path).\n` +
    '  light clients (the target rows): raw JSON-RPC, newline-delimited over stdio to the filesystem server and to the gateway --stdio, ' +
    'and POSTs to /mcp on a keep-alive node:http Agent; a real initialize first on each.',
);
const sdkRows = [];
for (const concurrency of [1, 16]) {
  const straight = await measure(direct, 'read_text_file', concurrency, [direct.pid]);
  // A client per run: its session and count of calls, not the previous run's, are what it carries.
  const lightHttp = await lightHttpClient(`http://127.0.0.1:${allowPort}/mcp`);
  const gateway = await measure(lightHttp, 'fs__read_text_file', concurrency, [
    allowGateway.pid,
    allowUpstream,
  ]);
  await lightHttp.close();
  const floorHttp = await lightHttpClient(`http://127.0.0.1:${floorPort}/mcp`);
  const floored = await measure(floorHttp, 'fs__read_text_file', concurrency, [
    floor.pid,
    floorUpstream,
  ]);
  await floorHttp.close();
  const overStdio = await measure(throughStdio, 'fs__read_text_file', concurrency, [
    throughStdio.pid,
    stdioUpstream,
  ]);
  console.log(
    `  light clients, concurrency ${concurrency}: direct p50 ${ms(straight.p50)}, p99 ${ms(straight.p99)}; ` +
      `through the gateway (HTTP) p50 ${ms(gateway.p50)}, p99 ${ms(gateway.p99)}; ${added(gateway, straight)}`,
  );
  console.log(
    `    CPU per call: direct: agent ${ms(straight.agentCpu)}, upstream ${ms(straight.cpu[0])}; ` +
      `through the gateway (HTTP): agent ${ms(gateway.agentCpu)}, gateway ${ms(gateway.cpu[0])}, upstream ${ms(gateway.cpu[1])}; ` +
      `added (agent + gateway + upstream) ${ms(gateway.agentCpu + gateway.cpu[0] + gateway.cpu[1] - straight.agentCpu - straight.cpu[0])}`,
  );
  console.log(
    `    through the gateway over stdio: p50 ${ms(overStdio.p50)}, p99 ${ms(overStdio.p99)}; ${added(overStdio, straight)}; ` +
      `CPU per call: agent ${ms(overStdio.agentCpu)}, gateway ${ms(overStdio.cpu[0])}, upstream ${ms(overStdio.cpu[1])}`,
  );
  console.log(
    `    through the floor proxy (HTTP): p50 ${ms(floored.p50)}, p99 ${ms(floored.p99)}; ${added(floored, straight)}; ` +
      `CPU per call: agent ${ms(floored.agentCpu)}, proxy ${ms(floored.cpu[0])}, upstream ${ms(floored.cpu[1])}`,
  );
  const sdkStraight = await measure(sdkDirect, 'read_text_file', concurrency, [
    sdkDirectTransport.pid,
  ]);
  const sdkHttp = await httpClient(allowPort);
  const sdkGateway = await measure(sdkHttp, 'fs__read_text_file', concurrency, [
    allowGateway.pid,
    allowUpstream,
  ]);
  await sdkHttp.close();
  sdkRows.push(
    `  SDK Client, concurrency ${concurrency}: direct p50 ${ms(sdkStraight.p50)}, p99 ${ms(sdkStraight.p99)}; ` +
      `through the gateway (HTTP) p50 ${ms(sdkGateway.p50)}, p99 ${ms(sdkGateway.p99)}; ${added(sdkGateway, sdkStraight)}\n` +
      `    CPU per call: agent direct ${ms(sdkStraight.agentCpu)}, agent through the gateway ${ms(sdkGateway.agentCpu)}, gateway ${ms(sdkGateway.cpu[0])}`,
  );
}
console.log(
  "  the SDK's Client on the same paths (its schema checks and fetch-based HTTP transport are the agent's CPU, shared with the gateway's cores):",
);
sdkRows.forEach((row) => console.log(row));
await throughStdio.close();
await direct.close();
await sdkDirect.close();

// 2. Held calls per GiB of RSS.
let approvals = 0;
// A held call keeps one long poll on its approval open at the stub: the approvals being polled
// are the calls the gateway holds (an approval asked for is not yet a held call).
const polling = new Map();
const WARM_APPROVAL = 'apr_bench1';
const heldNow = () => polling.size - (polling.has(WARM_APPROVAL) ? 1 : 0);
const stub = createServer((req, res) => {
  const pending = (id) => ({
    id,
    status: 'pending',
    tool: 'fs__write_file',
    argumentsHash: 'sha256:0',
    decision: null,
    redeemedAt: null,
  });
  if (req.method === 'POST') {
    approvals += 1;
    req.resume();
    res.writeHead(202, { 'content-type': 'application/json' });
    res.end(JSON.stringify(pending(`apr_bench${approvals}`)));
    return;
  }
  const wait = Number(new URL(req.url, 'http://stub').searchParams.get('wait') ?? 0);
  const id = req.url.split('/')[3].split('?')[0];
  polling.set(id, (polling.get(id) ?? 0) + 1);
  const timer = setTimeout(() => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(pending(id)));
  }, wait * 1000);
  res.once('close', () => {
    clearTimeout(timer);
    const open = polling.get(id) - 1;
    if (open === 0) polling.delete(id);
    else polling.set(id, open);
  });
}).listen(0, '127.0.0.1');
await new Promise((resolve) => stub.once('listening', resolve));
stub.keepAliveTimeout = 120_000;
const heldPort = await freePort();
const gateway = startGateway(
  [
    `approvalApi: { url: "http://127.0.0.1:${stub.address().port}", key: \${TOLLGATE_API_KEY} }`,
    'holdSeconds: 600',
    'progressSeconds: 60',
    `servers:\n  fs: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FS_SERVER)}, ${JSON.stringify(dir)}] }`,
    'policy: { default: ask }',
  ].join('\n'),
  heldPort,
);
children.push(gateway);
await untilReady(heldPort);
const clients = await Promise.all(Array.from({ length: 4 }, () => httpClient(heldPort)));
// Warm the gateway's code paths before the baseline, so the delta is the calls, not the JIT.
const warm = clients[0]
  .callTool({ name: 'fs__write_file', arguments: { path: file, content: 'warm' } })
  .catch(() => undefined);
while (!polling.has(WARM_APPROVAL)) await new Promise((resolve) => setTimeout(resolve, 20));
global.gc?.();
await new Promise((resolve) => setTimeout(resolve, 500));
const before = rssMb(gateway.pid);
const calls = Array.from({ length: HELD }, (_, i) =>
  clients[i % clients.length]
    .callTool(
      { name: 'fs__write_file', arguments: { path: join(dir, `held-${i}.txt`), content: 'x' } },
      undefined,
      { timeout: 600_000 },
    )
    .catch(() => undefined),
);
const deadline = Date.now() + 120_000;
while (heldNow() < HELD && Date.now() < deadline)
  await new Promise((resolve) => setTimeout(resolve, 50));
await new Promise((resolve) => setTimeout(resolve, 1_000));
// Counted as the RSS is read: the RSS is divided by the calls it holds, not those asked for.
const held = heldNow();
const withHeld = rssMb(gateway.pid);
const perCall = held === 0 ? NaN : ((withHeld - before) * 1024) / held;
console.log(
  `held calls: ${held} of ${HELD} calls held (${approvals - 1} approvals asked), gateway RSS ${before.toFixed(0)} MB before, ${withHeld.toFixed(0)} MB with them held; ` +
    `${perCall.toFixed(1)} KB per held call, ~${Math.floor((1024 * 1024) / Math.max(perCall, 0.1))} held calls per GiB`,
);
gateway.kill('SIGKILL');
await Promise.race([
  Promise.all([...calls, warm]),
  new Promise((resolve) => setTimeout(resolve, 2_000)),
]);
await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
stub.close();
stub.closeAllConnections();
children.forEach((c) => c.kill('SIGKILL'));
process.exit(0);
