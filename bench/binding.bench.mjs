// Figures for a binding (README, "Figures"): end-to-end throughput, output published on
// NATS → the platform API called → the output acked, with 1 and 2 replicas of the built
// binding at API latency 0 and 50 ms, next to a bare floor measured in the same run
// (bare-floor.consumer.mjs: JetStream consume + one PostgreSQL transaction + one HTTP call +
// ack, no framework) at the same concurrency; the CPU each spends per output; and chat API
// calls per prompt lifecycle against the lifecycle's visible state changes. Both the floor
// and the binding call the same bare stub of the platform's API (platform-api.stub.mjs), in
// its own process, so neither pays for it and neither measures a test fake. It reports; it
// asserts nothing about speed.
//
//   npm run bench:binding -- --platform slack|discord|mattermost|all [--count 500] [--rounds 3]
//   npm run bench:binding -- --platform all --smoke     (tiny counts: does it still run?)
//   npm run bench:binding -- --platform slack --cpu-prof /tmp/prof   (V8 profiles of the replicas)
//   npm run bench:binding -- --platform slack --warm-up 0   (a just-started binding's figures)
//   npm run bench:binding -- --platform slack --only 0:1 --count 5000 --rounds 1 --perf /tmp/perf
//       (Linux perf records the binding and the agent floor at c16 / 0 ms: CPU per output by layer)
//
// Each figure is the median of `rounds` runs of `count` outputs, the floor and the binding
// alternating so that both see the same machine. The arithmetic is bench-figures.js.
//
// Needs what the tests need (NATS JetStream and PostgreSQL on loopback, TEST_NATS_URL and
// TEST_DATABASE_URL as for jest) and the built dist/ (`npm run bench:binding` builds first).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { backendCpuMs } from './pg-backends.mjs';
import { PERF_HZ, perfUnavailable, startPerf } from './perf-recorder.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const figures = require('./bench-figures.js');
const perfBreakdown = require('./perf-breakdown.js');

const { values: args } = parseArgs({
  options: {
    platform: { type: 'string', default: 'slack' },
    count: { type: 'string' },
    rounds: { type: 'string' },
    smoke: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    'log-level': { type: 'string', default: 'warn' },
    /** A directory: each binding replica writes a V8 CPU profile there when it stops. */
    'cpu-prof': { type: 'string' },
    /** One cell only, `<latency ms>:<replicas>` (e.g. 0:1 for a profile at c16, 0 ms). */
    only: { type: 'string' },
    /** Outputs each replica handles before anything is measured (default 2000). */
    'warm-up': { type: 'string' },
    /**
     * A directory: Linux perf records the binding and the agent floor over the measured edits
     * of the 0 ms, 1-replica cell (D6's), and the table shows their CPU per output by layer.
     */
    perf: { type: 'string' },
  },
});
const PLATFORMS = ['slack', 'discord', 'mattermost'];
const platforms = args.platform === 'all' ? PLATFORMS : [args.platform];
if (!platforms.every((p) => PLATFORMS.includes(p))) {
  console.error(`bench:binding: --platform must be one of ${PLATFORMS.join(', ')} or all`);
  process.exit(2);
}
const SMOKE = args.smoke;
const COUNT = Number(args.count ?? (SMOKE ? 12 : 500));
if (!Number.isInteger(COUNT) || COUNT < (SMOKE ? 1 : 50) || COUNT > 5_000) {
  console.error('bench:binding: --count must be a whole number from 50 to 5000');
  process.exit(2);
}
const ONLY = args.only;
if (ONLY !== undefined && !/^(0|50):(1|2)$/.test(ONLY)) {
  console.error('bench:binding: --only must be one of 0:1, 0:2, 50:1, 50:2');
  process.exit(2);
}
const ROUNDS = Number(args.rounds ?? (SMOKE ? 1 : 3));
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
const LIFECYCLES = SMOKE ? 3 : 50;
// A replica's first outputs are not its steady cost: V8 optimises the hot path on background
// threads whose CPU is the process's own, and over a binding's first ~2,000 outputs that
// doubled the CPU per output measured after a warm-up of 200 (Slack, c16, 0 ms: 1.52-1.60 ms
// against 0.68-0.72 after 2,000). A binding runs for days; --warm-up 0 shows a cold one. The
// floors, a process per run, warm up the same way in theirs (floorRun).
const WARM_UP = Number(args['warm-up'] ?? (SMOKE ? 0 : 2000));
if (!Number.isInteger(WARM_UP) || WARM_UP < 0 || WARM_UP > 5_000) {
  console.error('bench:binding: --warm-up must be a whole number from 0 to 5000');
  process.exit(2);
}
const PERF_DIR = args.perf;
if (PERF_DIR !== undefined) {
  const why = perfUnavailable();
  if (why !== undefined) {
    console.error(`bench:binding: --perf needs perf: ${why}`);
    process.exit(2);
  }
  if (ONLY !== undefined && ONLY !== '0:1') {
    console.error('bench:binding: --perf records the 0 ms, 1-replica cell; --only must be 0:1');
    process.exit(2);
  }
  mkdirSync(PERF_DIR, { recursive: true });
}
/** V8 writes /tmp/perf-<pid>.map for perf to name JIT frames; removed when the bench ends. */
const perfMapPids = [];
const RUN_DEADLINE_MS = 60_000;
const OVERALL_DEADLINE_MS = (SMOKE ? 3 : 15) * 60_000 * platforms.length;

const { connect } = require('@nats-io/transport-node');
const { jetstream, jetstreamManager, AckPolicy, DeliverPolicy } = require('@nats-io/jetstream');
const { Client } = require('pg');
const protocol = require(join(root, 'dist/libs/protocol/index.js'));

const run = randomBytes(3).toString('hex');
const children = new Set();
let failed = false;
const cleanups = [];
const overall = setTimeout(() => {
  console.error('bench:binding: overran its deadline; stopping');
  void shutdown(1);
}, OVERALL_DEADLINE_MS);

// ---------------------------------------------------------------------------------------
// Plumbing

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

async function until(what, probe, deadlineMs = RUN_DEADLINE_MS, intervalMs = 10) {
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
  if (command.includes('--perf-basic-prof')) perfMapPids.push(child.pid);
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
    cpuMs: () => cpuMsOf(child.pid),
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
    30_000,
    50,
  ).then(() => handle);
}

async function cpuMsOf(pid) {
  return figures.cpuMsFromProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
}

async function shutdown(code) {
  clearTimeout(overall);
  await Promise.all([...children].map((child) => child.kill('SIGKILL')));
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  for (const pid of perfMapPids) rmSync(`/tmp/perf-${pid}.map`, { force: true });
  process.exit(code);
}

// ---------------------------------------------------------------------------------------
// The platforms: conversations, the binding's settings, the floor's edit body

const SETUP = {
  slack: {
    service: 'slack-binding',
    conversation: (n) => ({
      platform: 'slack',
      workspaceId: 'T0BENCH',
      channelId: `CBENCH${n % 8}`,
      threadId: `1800000000.${String(n).padStart(6, '0')}`,
    }),
    env: (stub) => ({
      SLACK_BOT_TOKEN: 'xoxb-bench-token',
      SLACK_SIGNING_SECRET: 'bench-signing-secret',
      SLACK_API_URL: `${stub}/api/`,
    }),
    floorBody: (view) => {
      const { renderSlackPrompt } = require(
        join(root, 'dist/apps/slack-binding/rendering/slack-prompt.renderer.js'),
      );
      const { text, blocks } = renderSlackPrompt(view, 'a1b2c3d4e5f6a1b2c3d4e5f6');
      return { text, blocks };
    },
    messageId: (n) => `1800000001.${String(n).padStart(6, '0')}`,
  },
  discord: {
    service: 'discord-binding',
    conversation: (n) => ({
      platform: 'discord',
      workspaceId: '1100000000000000001',
      // A Discord thread is a channel: one per prompt, as Slack's and Mattermost's threads.
      channelId: String(1200000000000000000n + BigInt(n)),
      threadId: '',
    }),
    env: (stub) => ({
      DISCORD_BOT_TOKEN: 'bench-bot-token',
      DISCORD_PUBLIC_KEY: 'ab'.repeat(32),
      DISCORD_APPLICATION_ID: '1100000000000000009',
      DISCORD_API_URL: `${stub}/api`,
    }),
    floorBody: (view) => {
      const { renderDiscordPrompt } = require(
        join(root, 'dist/apps/discord-binding/rendering/discord-prompt.renderer.js'),
      );
      return renderDiscordPrompt(view, 'a1b2c3d4e5f6a1b2c3d4e5f6');
    },
    messageId: (n) => String(1400000000000000000n + BigInt(n)),
  },
  mattermost: {
    service: 'mattermost-binding',
    conversation: (n) => ({
      platform: 'mattermost',
      workspaceId: 'benchteam0000000000000000a',
      // Mattermost ids are 26 characters; padded at the start, so 1 and 10 stay apart.
      channelId: `benchchannel${String(n % 8).padStart(14, '0')}`,
      threadId: `benchroot${String(n).padStart(17, '0')}`,
    }),
    env: (stub) => ({
      MATTERMOST_URL: stub,
      MATTERMOST_TOKEN: 'bench-token',
      MATTERMOST_ACTION_SECRET: 'bench-action-secret-0123456789abcdef',
      MATTERMOST_COMMAND_TOKEN: 'bench-command-token',
      MATTERMOST_PUBLIC_URL: 'http://127.0.0.1:9',
    }),
    floorBody: (view) => {
      const { renderMattermostPrompt } = require(
        join(root, 'dist/apps/mattermost-binding/rendering/mattermost-prompt.renderer.js'),
      );
      const post = renderMattermostPrompt(
        view,
        { promptRef: 'a1b2c3d4e5f6a1b2c3d4e5f6', postNonce: 'f'.repeat(32) },
        {
          actionUrl: 'http://127.0.0.1:9/mattermost/actions',
          actionSecret: 'bench-action-secret-0123456789abcdef',
        },
      );
      return { message: post.message, props: post.props };
    },
    messageId: (n) => `benchpost${String(n).padStart(17, '0')}`,
  },
};

// ---------------------------------------------------------------------------------------
// Outputs, as the session service publishes them

let promptCounter = 0;
const options = protocol.standardOptions();

function newRequest(platform) {
  promptCounter += 1;
  const conversation = SETUP[platform].conversation(promptCounter);
  const sessionId = protocol.deriveSessionId(conversation);
  return {
    type: 'ToolInteractionRequest',
    v: 1,
    id: protocol.outputId(sessionId, 5, 0),
    sessionId,
    conversation,
    occurredAt: new Date().toISOString(),
    seq: 5,
    callId: `call_${promptCounter}_1`,
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

async function benchPlatform(platform, { nc, js, jsm, db }) {
  const setup = SETUP[platform];
  const prefix = `bench${run}${platform.slice(0, 2)}`;
  const floorPrefix = `benchfloor${run}${platform.slice(0, 2)}`;
  const schema = `bench_${run}_${platform.slice(0, 2)}`;
  const floorTable = `"${schema}".floor_prompts`;
  const subjects = new protocol.Subjects(prefix);
  const outputsStream = protocol.streamNames(prefix).outputs;
  const bindingDurable = protocol.bindingDurable(platform);
  const floorStream = protocol.streamNames(floorPrefix).outputs;
  const FLOOR_DURABLE = 'floor';
  cleanups.push(async () => {
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
  cleanups.push(async () => {
    for (const name of Object.values(protocol.streamNames(prefix))) {
      await jsm.streams.delete(name).catch(() => false);
    }
    await jsm.streams.delete(floorStream).catch(() => false);
  });

  const stub = await startChild(
    `the ${platform} API stub`,
    [join(root, 'bench', 'platform-api.stub.mjs'), '--platform', platform],
    {},
    async (handle) => /listening \d+/.test(handle.output()),
  );
  const stubUrl = `http://127.0.0.1:${/listening (\d+)/.exec(stub.output())[1]}`;
  const stubTally = async () => (await fetch(`${stubUrl}/__stub/tally`)).json();
  const setLatency = (ms) => fetch(`${stubUrl}/__stub/latency/${ms}`, { method: 'PUT' });
  const callsOf = async (client, kind) => (await stubTally()).byClient[client]?.[kind] ?? 0;

  const idle = async (stream, durable) => {
    const info = await jsm.consumers.info(stream, durable);
    return info.num_ack_pending === 0 && info.num_pending === 0;
  };

  /**
   * Publishes `outputs`, waits until the stub answered `outputs.length` more `kind` calls of
   * `client` and every output is acked; outputs/s and CPU ms per output of `processes`.
   */
  async function timed(client, kind, outputs, subjectOf, stream, durable, processes, perfFile) {
    const before = await callsOf(client, kind);
    const pids = processes.map((p) => p.child.pid);
    const perf = perfFile === undefined ? undefined : await startPerf(perfFile, pids);
    const dbBefore = await backendCpuMs(db, pids);
    const cpuBefore = await Promise.all(processes.map((p) => p.cpuMs()));
    const started = performance.now();
    await publishAll(js, outputs, subjectOf);
    await until(
      `${outputs.length} ${kind} by the ${client}`,
      async () => (await callsOf(client, kind)) - before >= outputs.length,
    );
    await until('every output acked', () => idle(stream, durable));
    const elapsed = performance.now() - started;
    const cpuAfter = await Promise.all(processes.map((p) => p.cpuMs()));
    await perf?.stop();
    const dbAfter = await backendCpuMs(db, pids);
    const seen = (await callsOf(client, kind)) - before;
    if (seen !== outputs.length) {
      throw new Error(`expected ${outputs.length} ${kind} by the ${client}, saw ${seen}`);
    }
    return {
      perSecond: figures.rate(outputs.length, elapsed),
      cpuMs: figures.cpuMsPerOutput(cpuBefore, cpuAfter, outputs.length),
      dbCpuMs: figures.backendCpuMsPerOutput(dbBefore, dbAfter, outputs.length),
    };
  }

  const subjectOf = (output) => protocol.outputSubject(subjects, output);
  const replicas = [];
  /** Posts `count` prompts, then times resolving them all: one edit each. */
  /** `perfFile`: where perf records the measured edits (--perf), if anywhere. */
  async function bindingRun(count, perfFile) {
    const requests = Array.from({ length: count }, () => newRequest(platform));
    const bindingArgs = [subjectOf, outputsStream, bindingDurable, replicas];
    await timed('binding', 'posts', requests, ...bindingArgs);
    return timed('binding', 'edits', requests.map(resolvedOf), ...bindingArgs, perfFile);
  }

  async function startReplica() {
    const port = await freePort();
    const replica = await startChild(
      `a ${platform} binding replica`,
      [
        ...(args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${args['cpu-prof']}`] : []),
        ...(PERF_DIR === undefined ? [] : ['--perf-basic-prof']),
        join(root, 'dist', 'apps', setup.service, 'main.js'),
      ],
      {
        PORT: String(port),
        NATS_URL,
        DATABASE_URL,
        DATABASE_SCHEMA: schema,
        TOLLGATE_SUBJECT_PREFIX: prefix,
        LOG_LEVEL: args['log-level'],
        // The pacer runs on every call, with windows too short to hold anything back: the
        // bench measures the binding's own cost, not the platforms' limits.
        TOLLGATE_RATE_WINDOW_DIVISOR: '1000000',
        ...setup.env(stubUrl),
      },
      async () => {
        const response = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => {});
        return response?.status === 200;
      },
    );
    replicas.push(replica);
  }

  // The floor's world: its own stream and durable, and a table of prompts with their refs.
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
  const sample = newRequest(platform);
  const floorBody = setup.floorBody({
    kind: 'resolved',
    request: sample,
    optionKey: 'approve_once',
    label: 'Approve once',
    resolvedBy: { id: 'U0BOB', displayName: 'Bob' },
  });
  const floorSubjectOf = (output) => `${floorPrefix}.out.${platform}.${output.sessionId}.resolved`;
  let floorSchemaReady = false;

  /** `http`: the floor's HTTP client, `fetch` (undici) or a keep-alive node:http Agent. */
  async function floorRun(count, concurrency, http, perfFile) {
    if (!floorSchemaReady) {
      await db.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      await db.query(`CREATE TABLE IF NOT EXISTS ${floorTable} (
        id text PRIMARY KEY, channel text NOT NULL, ts text NOT NULL,
        status text NOT NULL, updated_at timestamptz)`);
      floorSchemaReady = true;
    }
    // The floor is a process of its own per run, so it warms up in that process: without it the
    // floor measured its JIT while the binding beside it was warm.
    const warming = Array.from({ length: WARM_UP }, () => newRequest(platform));
    const measured = Array.from({ length: count }, () => newRequest(platform));
    const requests = [...warming, ...measured];
    const refs = requests.map((r, i) => ({
      id: `${r.sessionId}/${r.callId}`,
      channel: r.conversation.channelId,
      ts: setup.messageId(promptCounter * 10 + i),
    }));
    await db.query(
      `INSERT INTO ${floorTable} (id, channel, ts, status)
       SELECT * , 'pending' FROM unnest($1::text[], $2::text[], $3::text[])`,
      [refs.map((r) => r.id), refs.map((r) => r.channel), refs.map((r) => r.ts)],
    );
    const floor = await startChild(
      'the floor consumer',
      [
        ...(PERF_DIR === undefined ? [] : ['--perf-basic-prof']),
        join(root, 'bench', 'bare-floor.consumer.mjs'),
      ],
      {
        FLOOR_CONFIG: JSON.stringify({
          natsUrl: NATS_URL,
          stream: floorStream,
          durable: FLOOR_DURABLE,
          databaseUrl: DATABASE_URL,
          table: floorTable,
          platform,
          apiBase: `${stubUrl}/c/floor`,
          token: 'bench-token',
          concurrency,
          http,
          ...(SMOKE ? { poolMax: 4 } : {}),
          body: floorBody,
        }),
      },
      async (handle) => handle.output().includes('ready'),
    );
    try {
      const floorArgs = [floorSubjectOf, floorStream, FLOOR_DURABLE, [floor]];
      if (warming.length > 0) await timed('floor', 'edits', warming.map(resolvedOf), ...floorArgs);
      return await timed('floor', 'edits', measured.map(resolvedOf), ...floorArgs, perfFile);
    } catch (error) {
      console.error(`the floor printed:\n${floor.output()}`);
      throw error;
    } finally {
      await floor.stop();
    }
  }

  await startReplica();
  cleanups.push(async () => {
    if (!failed) return;
    for (const replica of replicas) console.error(`a replica printed:\n${replica.output()}`);
  });
  // The replica's warm-up (JIT, connection pools), not counted; one started later is warmed too.
  if (WARM_UP > 0) {
    await bindingRun(WARM_UP);
  }

  const cells = {};
  for (const replicaCount of [1, 2]) {
    const concurrency = replicaCount * PER_REPLICA_IN_FLIGHT;
    for (const latency of LATENCIES_MS) {
      if (ONLY !== undefined && ONLY !== `${latency}:${replicaCount}`) continue;
      if (replicas.length < replicaCount) {
        while (replicas.length < replicaCount) await startReplica();
        // The replicas share the durable, so each handles about WARM_UP of these.
        if (WARM_UP > 0) await bindingRun(WARM_UP * replicaCount);
      }
      await setLatency(latency);
      const rounds = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        // --perf: the last round's measured edits of D6's cell, the agent floor's and the binding's.
        const perfOf = (who) =>
          PERF_DIR !== undefined && latency === 0 && replicaCount === 1 && round === ROUNDS - 1
            ? join(PERF_DIR, `${platform}-${who}.data`)
            : undefined;
        const floor = await floorRun(COUNT, concurrency, 'fetch');
        const agentFloor = await floorRun(COUNT, concurrency, 'agent', perfOf('agent-floor'));
        const binding = await bindingRun(COUNT, perfOf('binding'));
        rounds.push({
          floor: floor.perSecond,
          agentFloor: agentFloor.perSecond,
          binding: binding.perSecond,
          floorCpuMs: floor.cpuMs,
          agentFloorCpuMs: agentFloor.cpuMs,
          bindingCpuMs: binding.cpuMs,
          floorDbCpuMs: floor.dbCpuMs,
          agentFloorDbCpuMs: agentFloor.dbCpuMs,
          bindingDbCpuMs: binding.dbCpuMs,
        });
      }
      cells[`${latency}:${replicaCount}`] = {
        latency,
        replicaCount,
        concurrency,
        ...figures.cell(rounds),
      };
    }
  }
  await setLatency(0);

  // One prompt lifecycle shows three visible states: posted with buttons, refreshed in place
  // ("still valid"), resolved without buttons. Count every chat API call it takes.
  const lifecycle = Array.from({ length: LIFECYCLES }, () => newRequest(platform));
  const before = (await stubTally()).byClient.binding;
  for (const [kind, outputs] of [
    ['posts', lifecycle],
    ['edits', lifecycle.map(refreshedOf)],
    ['edits', lifecycle.map(resolvedOf)],
  ]) {
    await timed('binding', kind, outputs, subjectOf, outputsStream, bindingDurable, replicas);
  }
  const tally = await stubTally();
  const after = tally.byClient.binding;
  const callsPerLifecycle = (after.calls - before.calls) / LIFECYCLES;
  const visiblePerLifecycle =
    (after.posts - before.posts + after.edits - before.edits) / LIFECYCLES;

  await Promise.all(replicas.map((replica) => replica.stop()));
  await stub.stop();
  return {
    platform,
    cells,
    verdicts: ONLY === undefined ? figures.verdicts(cells) : undefined,
    perf:
      PERF_DIR === undefined
        ? undefined
        : Object.fromEntries(
            ['binding', 'agent-floor'].map((who) => [
              who,
              perfBreakdown.breakdownOfFile(join(PERF_DIR, `${platform}-${who}.data`), {
                outputs: COUNT,
                hz: PERF_HZ,
              }),
            ]),
          ),
    callsPerLifecycle,
    visiblePerLifecycle,
    // Both measured against the one stub process: its own count of each one's edits.
    stub: {
      url: stubUrl,
      floorEdits: tally.byClient.floor?.edits ?? 0,
      bindingEdits: tally.byClient.binding?.edits ?? 0,
    },
  };
}

async function main() {
  const nc = await connect({ servers: NATS_URL, name: 'bench' });
  cleanups.push(() => nc.close());
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const db = new Client({ connectionString: DATABASE_URL, application_name: 'bench' });
  await db.connect();
  cleanups.push(() => db.end());
  const { rows: pg } = await db.query('SHOW server_version');
  const results = [];
  for (const platform of platforms) {
    const result = await benchPlatform(platform, { nc, js, jsm, db });
    report(result, { nats: nc.info?.version, pg: pg[0] });
    results.push(result);
  }
  if (args.json) {
    console.log(`BENCH_JSON ${JSON.stringify({ count: COUNT, rounds: ROUNDS, results })}`);
  }
}

function report(result, { nats, pg }) {
  const { platform, cells, verdicts } = result;
  const fmt = (n, width) => n.toFixed(0).padStart(width);
  const ms = (n, width) => n.toFixed(2).padStart(width);
  const x = (n) => `${n.toFixed(2)}×`;
  console.log('');
  console.log(
    `Tollgate binding benchmark — platform ${platform}, median of ${ROUNDS} runs of ${COUNT} ` +
      `outputs after ${WARM_UP} per replica to warm up` +
      `${SMOKE ? ' (SMOKE: tiny counts, figures meaningless)' : ''}, ` +
      `${cpus().length} cores, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}, node ${process.version}, nats-server ${nats}, ` +
      `PostgreSQL ${pg.server_version}, binding LOG_LEVEL=${args['log-level']}`,
  );
  console.log(
    'end to end: output published → bare platform stub (own process) edited → acked; ' +
      `${PER_REPLICA_IN_FLIGHT} in flight per replica; the floor at the same total in flight`,
  );
  console.log(
    'two floors: "fetch" calls the stub with fetch (undici), "agent" with node:http over a ' +
      'keep-alive http.Agent; CPU ms/out is process CPU time, robust on a shared machine, ' +
      'outputs/s is not',
  );
  console.log('');
  console.log(
    'latency | replicas | in flight | fetch floor out/s | agent floor out/s | binding out/s | ' +
      'binding/fetch floor | binding/agent floor | fetch floor CPU ms/out | ' +
      'agent floor CPU ms/out | binding CPU ms/out',
  );
  for (const c of Object.values(cells)) {
    console.log(
      `${`${c.latency} ms`.padStart(7)} | ${String(c.replicaCount).padStart(8)} | ` +
        `${String(c.concurrency).padStart(9)} | ${fmt(c.floor, 17)} | ${fmt(c.agentFloor, 17)} | ` +
        `${fmt(c.binding, 13)} | ${x(c.ratio).padStart(19)} | ${x(c.agentRatio).padStart(19)} | ` +
        `${ms(c.floorCpuMs, 22)} | ${ms(c.agentFloorCpuMs, 22)} | ${ms(c.bindingCpuMs, 18)}`,
    );
  }
  console.log('');
  // What each makes PostgreSQL spend: the same outputs cost the database work too, and on a
  // machine they share, that CPU is the binding's as much as its own.
  for (const c of Object.values(cells)) {
    console.log(
      `database CPU ms/out at ${c.latency} ms, ${c.replicaCount} replica(s) (the PostgreSQL ` +
        `backends serving each): fetch floor ${c.floorDbCpuMs.toFixed(2)}, agent floor ` +
        `${c.agentFloorDbCpuMs.toFixed(2)}, binding ${c.bindingDbCpuMs.toFixed(2)}; binding ` +
        `and its database ${(c.bindingCpuMs + c.bindingDbCpuMs).toFixed(2)}, agent floor and ` +
        `its database ${(c.agentFloorCpuMs + c.agentFloorDbCpuMs).toFixed(2)}`,
    );
  }
  console.log('');
  for (const latency of ONLY === undefined ? LATENCIES_MS : []) {
    const s = figures.scaling(cells[`${latency}:1`], cells[`${latency}:2`]);
    console.log(
      `scaling at ${latency} ms: binding 1 → 2 replicas ${x(s.bindingGain)}; floor 16 → 32 in ` +
        `flight ${x(s.floorGain)}; binding gain ÷ floor gain ${x(s.gainVsFloor)}` +
        (latency === 50 ? ` (target ≥ ${x(figures.TARGETS.scalingVsFloor)})` : ''),
    );
  }
  if (verdicts !== undefined) {
    console.log(
      `binding vs floor at equal concurrency: worst ${x(verdicts.worstRatio)} against the ` +
        `fetch floor (target ≥ ${x(figures.TARGETS.bindingVsFloor)}), ` +
        `${x(verdicts.worstAgentRatio)} against the agent floor`,
    );
  }
  console.log(
    `chat API calls per prompt lifecycle: ${result.callsPerLifecycle.toFixed(2)} for ` +
      `${result.visiblePerLifecycle.toFixed(2)} visible state changes ` +
      '(posted with buttons, refreshed in place, resolved) (target: equal)',
  );
  if (result.perf !== undefined) {
    console.log('');
    console.log(
      `where the CPU goes at 0 ms, 1 replica, over the last round's ${COUNT} measured edits ` +
        `(Linux perf, cpu-clock at ${PERF_HZ} Hz, every thread, kernel included):`,
    );
    console.log(
      perfBreakdown.formatBreakdowns([
        ['binding', result.perf.binding],
        ['agent floor', result.perf['agent-floor']],
      ]),
    );
  }
  console.log(
    `stub ${result.stub.url}: answered ${result.stub.floorEdits} floor edits and ` +
      `${result.stub.bindingEdits} binding edits`,
  );
}

main().then(
  () => shutdown(0),
  (error) => {
    failed = true;
    console.error(`bench:binding failed: ${error.stack ?? error}`);
    void shutdown(1);
  },
);
