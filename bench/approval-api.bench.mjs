// Approval API figures (issue 20): approvals created per second through POST /v1/approvals,
// and decision → long-poll answer latency (p50/p99) with 1,000 long polls held open, plus the
// approval-api's RSS per held wait. Runs the built service (`npm run build` first) against the
// local NATS and PostgreSQL on its own subject prefix and schema, publishes the decisions as
// the session service does, and removes both at the end. Prints figures; asserts nothing.
// Usage: npm run bench:api [-- --creates 3000 --waits 1000 --decisions 200 --concurrency 64];
// `-- --smoke` runs tiny counts (a check that the bench still works, not a measurement).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname, '..');
const dist = (p) => join(root, 'dist', p);
const protocol = require(dist('libs/protocol/index.js'));
const persistence = require(dist('libs/persistence/index.js'));
const clientsLib = require(dist('libs/approval-clients/index.js'));
const { connect } = require('@nats-io/transport-node');
const { jetstream, jetstreamManager } = require('@nats-io/jetstream');

const SMOKE = process.argv.includes('--smoke');
const arg = (name, fallback, smoke) => {
  const i = process.argv.indexOf(`--${name}`);
  if (i > 0) return Number(process.argv[i + 1]);
  return SMOKE ? smoke : fallback;
};
const CREATES = arg('creates', 3_000, 60);
const WAITS = arg('waits', 1_000, 20);
const DECISIONS = Math.min(arg('decisions', 200, 10), WAITS);
const CONCURRENCY = arg('concurrency', 64, 8);
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const token = randomBytes(4).toString('hex');
const prefix = `benchapi${token}`;
const schema = `bench_api_${token}`;
const TARGETS = { createsPerSecond: 500, p99Ms: 100, rssPerWaitKiB: 50 };

// One socket per held wait, and keep-alive for the creates.
const agent = new Agent({ keepAlive: true, maxSockets: WAITS + CONCURRENCY + 16 });

const silent = { info() {}, warn() {}, error() {}, debug() {} };
const dataSource = persistence.createDataSource({
  url: DATABASE_URL,
  schema,
  migrations: clientsLib.APPROVAL_API_MIGRATIONS,
  applicationName: 'bench',
  poolSize: 2,
});
await dataSource.initialize();
await persistence.prepareSchemaAndMigrate(dataSource, silent);
const clients = new clientsLib.ApprovalClientsRepository(async () => dataSource);
const { client, key } = await clients.create({
  name: 'bench',
  platform: 'slack',
  workspaceId: 'T1',
  conversation: { channelId: 'C1', threadId: '' },
  approvers: ['U1'],
});

const port = await freePort();
const service = spawn(process.execPath, [dist('apps/approval-api/main.js')], {
  cwd: root,
  env: {
    PATH: process.env.PATH,
    PORT: String(port),
    DATABASE_URL,
    DATABASE_SCHEMA: schema,
    NATS_URL,
    TOLLGATE_SUBJECT_PREFIX: prefix,
    LOG_LEVEL: 'warn',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const base = `http://127.0.0.1:${port}`;
const nc = await connect({ servers: NATS_URL, name: 'bench' });
const js = jetstream(nc);
const subjects = new protocol.Subjects(prefix);

try {
  await until(
    'approval-api ready',
    async () => (await http('GET', '/health/ready')).status === 200,
    30_000,
  );

  // Creates per second.
  const warm = await create();
  if (warm.status !== 202) throw new Error(`create answered ${warm.status}`);
  let created = 0;
  const cpuBefore = cpuMs(service.pid);
  const started = performance.now();
  await lanes(CONCURRENCY, async () => {
    while (created < CREATES) {
      created += 1;
      const answer = await create();
      if (answer.status !== 202) throw new Error(`create answered ${answer.status}`);
    }
  });
  const createsPerSecond = (CREATES * 1_000) / (performance.now() - started);
  // The service's own CPU per create: what one core could do, whatever else the host runs.
  const cpuPerCreate = (cpuMs(service.pid) - cpuBefore) / CREATES;

  // Waits held, then decisions one at a time while the rest stay held.
  const pending = [];
  await lanes(CONCURRENCY, async () => {
    while (pending.length < WAITS) {
      const slot = pending.length;
      pending.push(undefined);
      pending[slot] = (await create()).body.id;
    }
  });
  const rssBefore = rssKiB(service.pid);
  const answered = new Map();
  const polls = pending.map((id) =>
    http('GET', `/v1/approvals/${id}?wait=60`).then((answer) => {
      answered.set(id, performance.now());
      return answer;
    }),
  );
  await until(`${WAITS} waits held`, async () => (await heldWaits()) >= WAITS, 30_000);
  const rssHeld = rssKiB(service.pid);
  const latencies = [];
  for (const id of pending.slice(0, DECISIONS)) {
    const at = performance.now();
    await decide(id);
    await until(`the answer for ${id}`, () => answered.has(id), 10_000, 1);
    latencies.push(answered.get(id) - at);
  }
  const stillHeld = await heldWaits();
  for (const id of pending.slice(DECISIONS)) await decide(id);
  await Promise.all(polls);

  latencies.sort((a, b) => a - b);
  const pct = (p) =>
    latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)];
  const rssPerWait = (rssHeld - rssBefore) / WAITS;
  const line = (label, value, target, ok) =>
    console.log(
      `${label.padEnd(44)} ${value.padStart(12)}   target ${target} ${ok ? 'met' : 'NOT met'}`,
    );
  console.log(`\napproval-api bench${SMOKE ? ' (smoke: tiny counts, not a measurement)' : ''}`);
  console.log(
    `creates ${CREATES} at concurrency ${CONCURRENCY}; ${WAITS} long polls held; ${DECISIONS} decisions timed`,
  );
  line(
    'approvals created per second',
    createsPerSecond.toFixed(0),
    `≥ ${TARGETS.createsPerSecond}`,
    createsPerSecond >= TARGETS.createsPerSecond,
  );
  console.log(
    `approval-api CPU per create ${cpuPerCreate.toFixed(2)} ms: one core's worth ≈ ${(1_000 / cpuPerCreate).toFixed(0)} creates/s`,
  );
  line(`decision → long-poll answer p50 (ms)`, pct(50).toFixed(1), '', true);
  line(
    `decision → long-poll answer p99 (ms)`,
    pct(99).toFixed(1),
    `≤ ${TARGETS.p99Ms}`,
    pct(99) <= TARGETS.p99Ms,
  );
  line(
    'RSS per held wait (KiB)',
    rssPerWait.toFixed(1),
    `≤ ${TARGETS.rssPerWaitKiB}`,
    rssPerWait <= TARGETS.rssPerWaitKiB,
  );
  console.log(
    `RSS ${rssBefore} KiB before the waits, ${rssHeld} KiB with ${WAITS} held; ${stillHeld} still held after the timed decisions`,
  );
} finally {
  agent.destroy();
  service.kill('SIGTERM');
  await new Promise((resolve) => service.once('exit', resolve));
  const jsm = await jetstreamManager(nc);
  for (const name of Object.values(protocol.streamNames(prefix)))
    await jsm.streams.delete(name).catch(() => false);
  await nc.close();
  await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await dataSource.destroy();
}

function auth() {
  return { authorization: `Bearer ${key}` };
}

function create() {
  return http(
    'POST',
    '/v1/approvals',
    { tool: 'Bash', arguments: { command: 'make deploy', n: Math.random() } },
    { 'idempotency-key': randomBytes(8).toString('hex') },
  );
}

/** One request on the keep-alive agent; resolves with the status and the parsed JSON body. */
function http(method, path, body, headers = {}) {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      {
        method,
        agent,
        headers: {
          ...auth(),
          ...headers,
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': payload.length }
            : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let parsed;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
          resolve({ status: res.statusCode, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function decide(approvalId) {
  const event = {
    type: 'ApprovalDecided',
    v: 1,
    id: `decision:${approvalId}`,
    occurredAt: new Date().toISOString(),
    sessionId: protocol.deriveAgentSessionId('slack', client.id, 'default'),
    approvalId,
    clientId: client.id,
    status: 'approved',
    decision: {
      option: 'approve_once',
      by: { platform: 'slack', id: 'U1' },
      via: 'click',
      reason: null,
    },
    decidedAt: new Date().toISOString(),
  };
  await js.publish(subjects.decision(client.id, approvalId), JSON.stringify(event), {
    msgID: event.id,
  });
}

async function heldWaits() {
  const text = (await http('GET', '/metrics')).body;
  return Number(/^tollgate_approval_waits_held (\d+)/m.exec(text)?.[1] ?? 0);
}

/** User + system CPU of a process in milliseconds (`/proc/<pid>/stat` fields 14 and 15). */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000) / 100;
}

function rssKiB(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

async function lanes(count, work) {
  await Promise.all(Array.from({ length: count }, () => work()));
}

async function until(what, probe, timeoutMs, intervalMs = 25) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await probe()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port: free } = server.address();
      server.close(() => resolve(free));
    });
  });
}
