// Figures for a binding (README, "Figures"): end-to-end throughput, output published on
// NATS → the fake chat API edited → the output acked, with 1 and 2 replicas of the built
// binding at fake API latency 0 and 50 ms, next to a bare floor measured in the same run
// (bare-floor.consumer.mjs: JetStream consume + one PostgreSQL transaction + one HTTP call to the
// fake + ack, no framework) at the same concurrency; and chat API calls per prompt lifecycle
// against the lifecycle's visible state changes. It reports; it asserts nothing.
//
//   npm run bench:binding -- --platform slack [--count 500] [--rounds 3]
//
// Each figure is the median of `rounds` runs of `count` outputs, the floor and the binding
// alternating so that both see the same machine.
//
// Needs what the tests need (NATS JetStream and PostgreSQL on loopback, TEST_NATS_URL and
// TEST_DATABASE_URL as for jest) and the built dist/ (`npm run bench:binding` builds first).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

const { values: args } = parseArgs({
  options: {
    platform: { type: 'string', default: 'slack' },
    count: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '3' },
    'log-level': { type: 'string', default: 'warn' },
  },
});
if (args.platform !== 'slack') {
  console.error(`bench:binding: no fake API for "${args.platform}" yet; only --platform slack`);
  process.exit(2);
}
const COUNT = Number(args.count);
if (!Number.isInteger(COUNT) || COUNT < 50 || COUNT > 5_000) {
  console.error('bench:binding: --count must be a whole number from 50 to 5000');
  process.exit(2);
}
const ROUNDS = Number(args.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || ROUNDS > 9) {
  console.error('bench:binding: --rounds must be a whole number from 1 to 9');
  process.exit(2);
}
const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
for (const url of [NATS_URL, DATABASE_URL]) {
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname)) {
    console.error(`bench:binding: runs on loopback only; ${new URL(url).host} is not`);
    process.exit(2);
  }
}
const PER_REPLICA_IN_FLIGHT = 16; // ConsumerHost's default maxInFlight
const LATENCIES_MS = [0, 50];
const LIFECYCLES = 50;
const RUN_DEADLINE_MS = 60_000;
const OVERALL_DEADLINE_MS = 5 * 60_000;

const { connect } = require('@nats-io/transport-node');
const { jetstream, jetstreamManager, AckPolicy, DeliverPolicy } = require('@nats-io/jetstream');
const { Client } = require('pg');
const protocol = require(join(root, 'dist/libs/protocol/index.js'));
const { renderSlackPrompt } = require(
  join(root, 'dist/apps/slack-binding/rendering/slack-prompt.renderer.js'),
);

const run = randomBytes(3).toString('hex');
const prefix = `bench${run}`;
const floorPrefix = `benchfloor${run}`;
const schema = `bench_${run}`;
const floorTable = `"${schema}".floor_prompts`;
const subjects = new protocol.Subjects(prefix);
const outputsStream = protocol.streamNames(prefix).outputs;
const bindingDurable = protocol.bindingDurable('slack');
const floorStream = protocol.streamNames(floorPrefix).outputs;
const FLOOR_DURABLE = 'floor';

const children = new Set();
const cleanups = [];
const overall = setTimeout(() => {
  console.error('bench:binding: overran its deadline; stopping');
  void shutdown(1);
}, OVERALL_DEADLINE_MS);

// ---------------------------------------------------------------------------------------
// Plumbing

/** The Slack stand-in the tests use (libs/platform-standins), as `npm run build` left it in dist/. */
async function loadSlackFake() {
  return require(join(root, 'dist', 'libs', 'platform-standins', 'slack-api.fake.js'));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function until(what, probe, deadlineMs = RUN_DEADLINE_MS, intervalMs = 5) {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function startChild(label, command, env, ready) {
  const child = spawn(process.execPath, command, {
    cwd: root,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  const keep = (chunk) => {
    printed = (printed + chunk.toString()).slice(-4_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  children.add(child);
  void exited.then(() => children.delete(child));
  const handle = {
    child,
    output: () => printed,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  return until(
    `${label} to be ready`,
    async () => {
      if (child.exitCode !== null) throw new Error(`${label} exited ${child.exitCode}: ${printed}`);
      return ready(handle);
    },
    20_000,
    50,
  ).then(() => handle);
}

async function startReplica(fake) {
  const port = await freePort();
  return startChild(
    'a binding replica',
    [join(root, 'dist', 'apps', 'slack-binding', 'main.js')],
    {
      PORT: String(port),
      NATS_URL,
      DATABASE_URL,
      DATABASE_SCHEMA: schema,
      TOLLGATE_SUBJECT_PREFIX: prefix,
      LOG_LEVEL: args['log-level'],
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_SIGNING_SECRET: 'bench-signing-secret',
      SLACK_API_URL: fake.apiUrl,
    },
    async () => {
      const response = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined);
      return response?.status === 200;
    },
  );
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

async function shutdown(code) {
  clearTimeout(overall);
  await Promise.all([...children].map((child) => child.kill('SIGKILL')));
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  process.exit(code);
}

// ---------------------------------------------------------------------------------------
// Outputs, as the session service publishes them

let promptCounter = 0;
const options = protocol.standardOptions();

function newRequest() {
  promptCounter += 1;
  const conversation = {
    platform: 'slack',
    workspaceId: 'T0BENCH',
    channelId: `CBENCH${promptCounter % 8}`,
    threadId: `1800000000.${String(promptCounter).padStart(6, '0')}`,
  };
  const sessionId = protocol.deriveSessionId(conversation);
  return {
    type: 'ToolInteractionRequest',
    v: 1,
    id: protocol.outputId(sessionId, 5, 0),
    sessionId,
    conversation,
    occurredAt: new Date().toISOString(),
    seq: 5,
    callId: 'call_1_1',
    batchId: 'batch_5',
    toolName: 'write_note',
    displayText: `Write a note: "benchmark ${promptCounter}"`,
    requester: { id: 'U0ALICE', displayName: 'Alice' },
    principal: 'user',
    options,
  };
}

function later(request, seq, fields) {
  const { type, status } = fields;
  return {
    type,
    v: 1,
    id: protocol.outputId(request.sessionId, seq, 0),
    sessionId: request.sessionId,
    conversation: request.conversation,
    occurredAt: new Date().toISOString(),
    seq,
    callId: request.callId,
    ...(type === 'ToolInteractionUpdate'
      ? { status, reason: 'the service restarted; this request is still valid', request }
      : {
          optionKey: 'approve_once',
          label: 'Approve once',
          resolvedBy: { id: 'U0BOB', displayName: 'Bob' },
        }),
  };
}
const resolvedOf = (request) => later(request, 8, { type: 'ToolInteractionResolved' });
const refreshedOf = (request) =>
  later(request, 7, { type: 'ToolInteractionUpdate', status: 'RefreshedAfterRestart' });

async function publishAll(js, outputs, subjectOf) {
  for (let i = 0; i < outputs.length; i += 200) {
    await Promise.all(
      outputs
        .slice(i, i + 200)
        .map((o) => js.publish(subjectOf(o), protocol.encodeMessage(o), { msgID: o.id })),
    );
  }
}

// ---------------------------------------------------------------------------------------
// Measurements

async function main() {
  const nc = await connect({ servers: NATS_URL, name: 'bench' });
  cleanups.push(() => nc.close());
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const db = new Client({ connectionString: DATABASE_URL, application_name: 'bench' });
  await db.connect();
  cleanups.push(async () => {
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  });
  cleanups.push(async () => {
    for (const name of Object.values(protocol.streamNames(prefix))) {
      await jsm.streams.delete(name).catch(() => false);
    }
    await jsm.streams.delete(floorStream).catch(() => false);
  });
  const { SlackApiFake } = await loadSlackFake();
  const fake = new SlackApiFake();
  await fake.start();
  cleanups.push(() => fake.stop());
  const { rows: pg } = await db.query('SHOW server_version');

  const idle = async (stream, durable) => {
    const info = await jsm.consumers.info(stream, durable);
    return info.num_ack_pending === 0 && info.num_pending === 0;
  };

  /** Publishes `outputs`, waits until the fake saw `count` more of `kind` and all is acked. */
  async function timed(kind, outputs, subjectOf, stream, durable) {
    const before = fake.tally()[kind];
    const started = performance.now();
    await publishAll(js, outputs, subjectOf);
    await until(`${outputs.length} ${kind}`, () => fake.tally()[kind] - before >= outputs.length);
    await until('every output acked', () => idle(stream, durable));
    const seconds = (performance.now() - started) / 1000;
    if (fake.tally()[kind] - before !== outputs.length) {
      throw new Error(`expected ${outputs.length} ${kind}, saw ${fake.tally()[kind] - before}`);
    }
    return outputs.length / seconds;
  }

  const subjectOf = (output) => protocol.outputSubject(subjects, output);
  /** Posts `count` prompts (timed as a by-product), then times resolving them all. */
  async function bindingRun(count) {
    const requests = Array.from({ length: count }, newRequest);
    const posts = await timed('posts', requests, subjectOf, outputsStream, bindingDurable);
    const edits = await timed(
      'edits',
      requests.map(resolvedOf),
      subjectOf,
      outputsStream,
      bindingDurable,
    );
    return { posts, edits };
  }

  // The floor's world: its own stream and durable, a table of prompts with their message
  // refs, and the messages it edits already in the fake.
  await jsm.streams.add({
    name: floorStream,
    subjects: [`${floorPrefix}.>`],
    storage: 'file',
    retention: 'limits',
  });
  await jsm.consumers.add(floorStream, {
    durable_name: FLOOR_DURABLE,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: 30_000_000_000,
    max_deliver: 1000,
  });
  const sample = newRequest();
  const resolvedView = renderSlackPrompt(
    {
      kind: 'resolved',
      request: sample,
      optionKey: 'approve_once',
      label: 'Approve once',
      resolvedBy: { id: 'U0BOB', displayName: 'Bob' },
    },
    'a1b2c3d4e5f6a1b2c3d4e5f6',
  );
  const floorSubjectOf = (output) => `${floorPrefix}.out.slack.${output.sessionId}.resolved`;
  let floorSchemaReady = false;

  async function floorRun(count, concurrency) {
    if (!floorSchemaReady) {
      await db.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await db.query(`CREATE TABLE IF NOT EXISTS ${floorTable} (
        id text PRIMARY KEY, channel text NOT NULL, ts text NOT NULL,
        status text NOT NULL, updated_at timestamptz)`);
      floorSchemaReady = true;
    }
    const requests = Array.from({ length: count }, newRequest);
    const refs = requests.map((r) => ({
      id: `${r.sessionId}/${r.callId}`,
      channel: r.conversation.channelId,
      ts: fake.addUserMessage({
        channel: r.conversation.channelId,
        thread_ts: r.conversation.threadId,
        user: fake.identity.botUserId,
        bot_id: fake.identity.botId,
        text: 'seeded prompt',
      }),
    }));
    await db.query(
      `INSERT INTO ${floorTable} (id, channel, ts, status)
       SELECT * , 'pending' FROM unnest($1::text[], $2::text[], $3::text[])`,
      [refs.map((r) => r.id), refs.map((r) => r.channel), refs.map((r) => r.ts)],
    );
    const floor = await startChild(
      'the floor consumer',
      [join(root, 'bench', 'bare-floor.consumer.mjs')],
      {
        FLOOR_CONFIG: JSON.stringify({
          natsUrl: NATS_URL,
          stream: floorStream,
          durable: FLOOR_DURABLE,
          databaseUrl: DATABASE_URL,
          table: floorTable,
          apiUrl: fake.apiUrl,
          token: fake.botToken,
          concurrency,
          text: resolvedView.text,
          blocks: resolvedView.blocks,
        }),
      },
      async (handle) => handle.output().includes('ready'),
    );
    try {
      return await timed(
        'edits',
        requests.map(resolvedOf),
        floorSubjectOf,
        floorStream,
        FLOOR_DURABLE,
      );
    } finally {
      await floor.stop();
    }
  }

  const replicas = [await startReplica(fake)];
  // Warm-up: JIT, connection pools, the fake's first blocks; not counted.
  await bindingRun(Math.min(200, COUNT));
  await floorRun(Math.min(200, COUNT), PER_REPLICA_IN_FLIGHT);

  const rows = [];
  for (const replicaCount of [1, 2]) {
    if (replicas.length < replicaCount) replicas.push(await startReplica(fake));
    const concurrency = replicaCount * PER_REPLICA_IN_FLIGHT;
    for (const latency of LATENCIES_MS) {
      fake.setLatencyMs(latency);
      const floors = [];
      const bindings = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        floors.push(await floorRun(COUNT, concurrency));
        bindings.push(await bindingRun(COUNT));
      }
      rows.push({
        latency,
        replicaCount,
        concurrency,
        floor: median(floors),
        edits: median(bindings.map((b) => b.edits)),
        posts: median(bindings.map((b) => b.posts)),
      });
    }
  }
  fake.setLatencyMs(0);

  // One prompt lifecycle shows three visible states: posted with buttons, refreshed in place
  // ("still valid"), resolved without buttons. Count every chat API call it takes.
  const lifecycle = Array.from({ length: LIFECYCLES }, newRequest);
  const before = fake.tally();
  for (const [kind, outputs] of [
    ['posts', lifecycle],
    ['edits', lifecycle.map(refreshedOf)],
    ['edits', lifecycle.map(resolvedOf)],
  ]) {
    await timed(kind, outputs, subjectOf, outputsStream, bindingDurable);
  }
  const after = fake.tally();
  const callsPerLifecycle = (after.calls - before.calls) / LIFECYCLES;
  const visiblePerLifecycle =
    (after.posts - before.posts + after.edits - before.edits) / LIFECYCLES;

  await Promise.all(replicas.map((replica) => replica.stop()));
  report({ rows, callsPerLifecycle, visiblePerLifecycle, nats: nc.info?.version, pg: pg[0] });
}

function report({ rows, callsPerLifecycle, visiblePerLifecycle, nats, pg }) {
  const fmt = (n) => n.toFixed(0).padStart(6);
  const ratio = (n) => `${n.toFixed(2)}×`;
  console.log('');
  console.log(
    `Tollgate binding benchmark — platform slack, median of ${ROUNDS} runs of ${COUNT} outputs, ` +
      `${cpus().length} cores, node ${process.version}, nats-server ${nats}, ` +
      `PostgreSQL ${pg.server_version}, binding LOG_LEVEL=${args['log-level']}`,
  );
  console.log(
    'end to end: output published → fake Slack API edited → acked (outputs/s); ' +
      `${PER_REPLICA_IN_FLIGHT} in flight per replica`,
  );
  console.log('');
  console.log(
    'fake latency | replicas | in flight | floor edits/s | binding edits/s | binding/floor | binding posts/s',
  );
  for (const row of rows) {
    console.log(
      `${`${row.latency} ms`.padStart(12)} | ${String(row.replicaCount).padStart(8)} | ` +
        `${String(row.concurrency).padStart(9)} | ${fmt(row.floor).padStart(13)} | ` +
        `${fmt(row.edits).padStart(15)} | ${ratio(row.edits / row.floor).padStart(13)} | ` +
        `${fmt(row.posts).padStart(15)}`,
    );
  }
  console.log('');
  for (const latency of LATENCIES_MS) {
    const one = rows.find((r) => r.latency === latency && r.replicaCount === 1);
    const two = rows.find((r) => r.latency === latency && r.replicaCount === 2);
    console.log(
      `scaling at ${latency} ms: 1 → 2 replicas ${ratio(two.edits / one.edits)}` +
        (latency === 50 ? ' (target ≥ 1.8×)' : '') +
        `; the floor from ${one.concurrency} to ${two.concurrency} in flight on the same ` +
        `machine: ${ratio(two.floor / one.floor)}`,
    );
  }
  const worst = Math.min(...rows.map((r) => r.edits / r.floor));
  console.log(`binding vs floor at equal concurrency: worst ${ratio(worst)} (target ≥ 0.80×)`);
  console.log(
    `chat API calls per prompt lifecycle: ${callsPerLifecycle.toFixed(2)} for ` +
      `${visiblePerLifecycle.toFixed(2)} visible state changes ` +
      '(posted with buttons, refreshed in place, resolved) (target: equal)',
  );
}

main().then(
  () => shutdown(0),
  (error) => {
    console.error(`bench:binding failed: ${error.stack ?? error}`);
    void shutdown(1);
  },
);
