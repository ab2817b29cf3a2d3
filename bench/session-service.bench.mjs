// Session service figures. Issue 5: recovery of 10,000 parked approvals, click → Resolved
// latency over 1,000 clicks, and the idle RSS of a service holding 10,000 parked sessions.
// Issue 10: turns/s and peak concurrent model calls against a model answering after 1 s
// (a stub in its own process) at 300 and 1,000 conversations, RSS with 1,000 turns in
// flight, and click → Resolved on a session of 10,000 events versus a fresh one.
// Runs the built service (`npm run build` first) against the local NATS and PostgreSQL,
// on its own subject prefix and schema, and removes both at the end. Prints figures; asserts
// nothing. Usage: npm run bench:session [-- --sessions 10000 --clicks 1000 --long-events 10000
// --long-clicks 200 --conversations 300,1000 --model-ms 1000 --audit-decisions 2000
// --audit-concurrency 16 --seal-ms 1000 --recovery-runs 1 --lull-ms 0 --idle-ms 45000]; `-- --smoke` runs tiny
// counts (a check that the bench still works, not a measurement). `--lull-ms N` leaves the
// service idle N ms before each conversations run after the first, as chat traffic comes in
// bursts: each run prints the CPU its database backends spent per turn, which shows whether
// the burst met warm connections (S18). `--idle-ms N` (default 45000) is how long the idle
// RSS is watched after recovery: right after its burst the heap still holds the burst's
// garbage until V8's memory reducer collects it (15-25 s later here), so the figure is the
// lowest RSS in that window, printed beside the one right after recovery.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { backendCpuMs } from './pg-backends.mjs';

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname, '..');
const dist = (p) => join(root, 'dist', p);
const protocol = require(dist('libs/protocol/index.js'));
const { SessionRecorder } = require(
  dist('apps/session-service/session/domain/session-recorder.js'),
);
const { replay } = require(dist('libs/session-read-model/index.js'));
const { decideResponse, decideUserMessage } = require(
  dist('apps/session-service/session/domain/session.decider.js'),
);
// D1: a decider only records the decision; the shell's driveTurn runs the turn it starts.
const { driveTurn } = require(dist('apps/session-service/session/drive-turn.js'));
const { ScriptedModelClient } = require(
  dist('apps/session-service/model/scripted-model.client.js'),
);
const { builtInTools } = require(dist('apps/session-service/tools/tool-registry.js'));
const { defaultToolPolicy } = require(dist('apps/session-service/tools/tool-policy.js'));
const { noToolGrants } = require(dist('apps/session-service/session/domain/tool-grants.port.js'));
const benchFigures = require('./bench-figures.js');
const { connect } = require('@nats-io/transport-node');
const { jetstream, jetstreamManager } = require('@nats-io/jetstream');
const { Client } = require('pg');

const SMOKE = process.argv.includes('--smoke');
const raw = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const arg = (name, fallback, smoke) => {
  const value = raw(name);
  if (value !== undefined) return Number(value);
  return SMOKE ? smoke : fallback;
};
const SESSIONS = arg('sessions', 10_000, 20);
const CLICKS = Math.min(arg('clicks', 1_000, 5), SESSIONS);
const LONG_EVENTS = arg('long-events', 10_000, 300);
const LONG_CLICKS = arg('long-clicks', 200, 5);
const MODEL_MS = arg('model-ms', 1_000, 200);
// Restarts whose recovery is timed; the median is the figure (the machine's load moves it).
const RECOVERY_RUNS = arg('recovery-runs', 1, 1);
if (!Number.isInteger(RECOVERY_RUNS) || RECOVERY_RUNS < 1 || RECOVERY_RUNS > 9) {
  console.error('bench:session: --recovery-runs must be a whole number from 1 to 9');
  process.exit(2);
}
const AUDIT_DECISIONS = arg('audit-decisions', 2_000, 20);
const AUDIT_CONCURRENCY = arg('audit-concurrency', 16, 4);
// G4: how often the bench's sealer links audit entries (the leader's TOLLGATE_AUDIT_SEAL_MS).
const SEAL_MS = arg('seal-ms', 1_000, 1_000);
const LULL_MS = arg('lull-ms', 0, 0);
if (!Number.isInteger(LULL_MS) || LULL_MS < 0 || LULL_MS > 600_000) {
  console.error('bench:session: --lull-ms must be a whole number of ms from 0 to 600000');
  process.exit(2);
}
const IDLE_MS = arg('idle-ms', 45_000, 1_000);
if (!Number.isInteger(IDLE_MS) || IDLE_MS < 0 || IDLE_MS > 600_000) {
  console.error('bench:session: --idle-ms must be a whole number of ms from 0 to 600000');
  process.exit(2);
}
const CONVERSATIONS = (raw('conversations') ?? (SMOKE ? '10,20' : '300,1000'))
  .split(',')
  .map(Number);
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const token = randomBytes(4).toString('hex');
const prefix = `bench${token}`;
const schema = `bench_${token}`;
// A port the kernel says is free now. A random pick in a fixed range could be another test's
// service, whose 200 on /health/ready let the bench seed a schema nothing had migrated.
const port = await new Promise((resolve, reject) => {
  const probe = createServer().once('error', reject);
  probe.listen(0, '127.0.0.1', () => {
    const { port: free } = probe.address();
    probe.close(() => resolve(free));
  });
});
const env = {
  PATH: process.env.PATH,
  DATABASE_URL,
  DATABASE_SCHEMA: schema,
  NATS_URL,
  TOLLGATE_SUBJECT_PREFIX: prefix,
  PORT: String(port),
  LOG_LEVEL: 'warn',
};

function startService(extraEnv = {}) {
  const child = spawn(process.execPath, [dist('apps/session-service/main.js')], {
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { child, exited, startedAt: performance.now() };
}

async function until(what, probe, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const ready = () =>
  until(
    'readiness',
    async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200,
  );

async function stop(service) {
  service.child.kill('SIGTERM');
  await service.exited;
}

const deps = {
  model: new ScriptedModelClient(),
  tools: builtInTools(),
  policy: defaultToolPolicy(),
  grants: noToolGrants,
};

const conversationOf = (tag) => ({
  platform: 'slack',
  workspaceId: 'TBENCH',
  channelId: `C${tag}`,
  threadId: `${tag}.0001`,
});

/** The journal of a session parked on one write_note approval, built by the real decider. */
async function parkedSession(i) {
  const conversation = conversationOf(i);
  const sessionId = protocol.deriveSessionId(conversation);
  const recorder = new SessionRecorder(replay(sessionId, []), new Date().toISOString());
  await decideUserMessage(recorder, {
    type: 'UserMessage',
    v: 1,
    id: `seed-${i}`,
    sessionId,
    conversation,
    occurredAt: new Date().toISOString(),
    sender: { id: 'UBENCH' },
    text: `!write_note {"text":"note ${i}"}`,
  });
  await driveTurn(recorder, deps);
  return { sessionId, conversation, recorded: recorder.recorded };
}

async function seed(db, sessions) {
  const rows = { sid: [], seq: [], type: [], data: [], at: [] };
  const pending = { sid: [], call: [], seq: [] };
  for (const s of sessions) {
    for (const r of s.recorded) {
      rows.sid.push(s.sessionId);
      rows.seq.push(r.seq);
      rows.type.push(r.event.type);
      rows.data.push(JSON.stringify(r.event));
      rows.at.push(r.occurredAt);
      if (r.event.type === 'ToolApprovalRequested') {
        pending.sid.push(s.sessionId);
        pending.call.push(r.event.callId);
        pending.seq.push(r.seq);
      }
    }
  }
  await db.query(
    `INSERT INTO "${schema}".session_events (session_id, seq, type, data, occurred_at)
     SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::jsonb[], $5::timestamptz[])`,
    [rows.sid, rows.seq, rows.type, rows.data, rows.at],
  );
  await db.query(
    `INSERT INTO "${schema}".pending_approvals (session_id, call_id, requested_seq)
     SELECT * FROM unnest($1::text[], $2::text[], $3::int[])`,
    [pending.sid, pending.call, pending.seq],
  );
}

function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

/**
 * The lowest RSS of an idle process over `ms`, sampled every 250 ms. A bench waits on purpose
 * here: what is measured is the process left alone, which V8 shrinks once it sees the
 * allocation rate fall, not a condition to poll for.
 */
async function lowestRss(pid, ms) {
  let lowest = rssMb(pid);
  for (const end = performance.now() + ms; performance.now() < end;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    lowest = Math.min(lowest, rssMb(pid));
  }
  return lowest;
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const db = new Client({ connectionString: DATABASE_URL });
await db.connect();
const nc = await connect({ servers: NATS_URL });
const names = protocol.streamNames(prefix);
try {
  // First start: migrations and streams.
  let service = startService();
  await ready();
  await stop(service);

  console.log(`seeding ${SESSIONS} parked sessions through the real decider…`);
  const sessions = [];
  for (let i = 0; i < SESSIONS; i += 1) sessions.push(await parkedSession(i));
  await seed(db, sessions);

  // Recovery: from process start until every refresh is in the output stream. With
  // --recovery-runs N the service is restarted N times (the stream emptied between), so the
  // spread of a figure the machine's load moves is printed, not one sample of it.
  const jsm = await jetstreamManager(nc);
  const recoveryRates = [];
  for (let run = 0; run < RECOVERY_RUNS; run += 1) {
    if (run > 0) {
      await stop(service);
      await jsm.streams.purge(names.outputs);
    }
    service = startService();
    await until('all refreshes published', async () => {
      const info = await jsm.streams.info(names.outputs);
      return info.state.messages >= SESSIONS;
    });
    recoveryRates.push(SESSIONS / ((performance.now() - service.startedAt) / 1000));
    await ready();
  }
  const recoveryMedian = [...recoveryRates].sort((a, b) => a - b)[
    Math.floor((recoveryRates.length - 1) / 2)
  ];

  const rssAfterRecovery = rssMb(service.child.pid);
  const idleRss = await lowestRss(service.child.pid, IDLE_MS);

  // Click → Resolved latency, one click at a time, observed on a core subscription.
  const resolvedAt = new Map();
  const sub = nc.subscribe(`${prefix}.out.slack.*.call.*.resolved`, {
    callback: (_e, m) =>
      resolvedAt.set(JSON.parse(new TextDecoder().decode(m.data)).sessionId, performance.now()),
  });
  const js = jetstream(nc);
  const subjects = new protocol.Subjects(prefix);
  const latencies = [];
  for (let i = 0; i < CLICKS; i += 1) {
    const s = sessions[i];
    const click = {
      type: 'ToolInteractionResponse',
      v: 1,
      id: `click-${i}`,
      sessionId: s.sessionId,
      conversation: s.conversation,
      occurredAt: new Date().toISOString(),
      callId: 'call_2_1',
      optionKey: 'approve_once',
      sender: { id: 'UBENCH' },
    };
    const sent = performance.now();
    await js.publish(
      subjects.command(s.conversation.platform, s.sessionId, 'response'),
      protocol.encodeMessage(click),
      {
        msgID: click.id,
      },
    );
    await until(`resolved ${i}`, async () => resolvedAt.has(s.sessionId), 10_000);
    latencies.push(resolvedAt.get(s.sessionId) - sent);
  }
  sub.unsubscribe();
  latencies.sort((a, b) => a - b);

  await stop(service);

  const long = await longSessionClicks(db);
  const turns = await turnsWithSlowModel(db);
  const audit = await auditAppendCost();
  const throughput = await auditThroughput();

  const cores = (await import('node:os')).cpus().length;
  console.log('');
  console.log(
    `session-service figures${SMOKE ? ' (SMOKE: tiny counts, not a measurement)' : ''} (this machine: ${cores} cores; load average ${(await import('node:os')).loadavg()[0].toFixed(1)})`,
  );
  console.log(
    `  recovery: ${SESSIONS} refreshes published at ${Math.round(recoveryMedian)} per second${RECOVERY_RUNS > 1 ? ` (median of ${RECOVERY_RUNS} restarts: ${recoveryRates.map(Math.round).join(', ')})` : ''} (target >= 2000/s, includes process start)`,
  );
  console.log(
    `  click -> Resolved (${CLICKS} clicks): p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms (target p99 <= 50 ms)`,
  );
  console.log(
    `  idle RSS holding ${SESSIONS} parked sessions: ${idleRss.toFixed(0)} MB, the lowest in ${IDLE_MS} ms idle after recovery (right after it: ${rssAfterRecovery.toFixed(0)} MB) (target <= 200 MB)`,
  );
  console.log(
    `  click -> Resolved on a ${long.events}-event session: p50 ${long.long.p50.toFixed(1)} ms, p99 ${long.long.p99.toFixed(1)} ms; fresh session: p50 ${long.fresh.p50.toFixed(1)} ms, p99 ${long.fresh.p99.toFixed(1)} ms; ratio p99 ${(long.long.p99 / long.fresh.p99).toFixed(2)} (target <= 2)`,
  );
  for (const t of turns.runs) {
    console.log(
      `  ${t.conversations} conversations, one message each, model answering after ${MODEL_MS} ms${t.lullMs > 0 ? `, after ${t.lullMs} ms idle` : ''}: ${t.turnsPerSecond.toFixed(1)} turns/s, last reply after ${t.seconds.toFixed(2)} s, peak ${t.peakModelCalls} model calls at once (MODEL_MAX_CONCURRENCY ${turns.maxConcurrency}; target >= 100 turns/s); service CPU ${t.serviceCpuMsPerTurn.toFixed(2)} ms/turn, database CPU ${t.databaseCpuMsPerTurn.toFixed(2)} ms/turn on ${t.backends} connections`,
    );
  }
  console.log(
    `  audit append per decision (G4; ${audit.decisions} decisions of ${audit.perDecision} entries: answer, run, result): p50 ${audit.p50.toFixed(2)} ms, p99 ${audit.p99.toFixed(2)} ms added to the decision's transaction (an empty transaction: p50 ${audit.bareP50.toFixed(2)} ms); ${audit.entries} audit entries written by this run`,
  );
  console.log(
    `  decision transactions/s at concurrency ${throughput.concurrency} (${throughput.decisions} each: ${throughput.eventsPerDecision} journal events): without audit ${throughput.without.toFixed(0)}/s, with audit ${throughput.with.toFixed(0)}/s (${throughput.entriesPerDecision} entries each) = ${((throughput.with / throughput.without) * 100).toFixed(1)} % (target >= 90 %); audit append per decision in this run: ${throughput.appendMs.toFixed(2)} ms mean (an unchained insert, no lock); sealing into the day's chain every ${SEAL_MS} ms on one connection: ${throughput.sealedPerSecond.toFixed(0)} entries/s while sealing, ${throughput.backlog} entries not yet chained when the decisions stopped, chained ${throughput.catchUpMs.toFixed(0)} ms later`,
  );
  const biggest = turns.runs.at(-1);
  console.log(
    `  RSS with ${biggest.conversations} turns in flight: peak ${biggest.peakRss.toFixed(0)} MB`,
  );
} finally {
  for (const name of [names.commands, names.outputs, names.deadLetters, names.decisions]) {
    await (await jetstreamManager(nc)).streams.delete(name).catch(() => false);
  }
  await nc.close();
  await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await db.end();
}

// ── G4: what appending a click decision's audit entries adds to its transaction ─────────

/**
 * A transaction on `client` as the session service's decisions hold one: a TypeORM
 * EntityManager's `query`, and its runner's pg client, on which the append runs as a prepared
 * statement (queryPrepared) — as it does in the service.
 */
function inTransaction(client) {
  return {
    query: async (sql, params) => (await client.query(sql, params)).rows,
    queryRunner: { databaseConnection: client },
  };
}

async function auditAppendCost() {
  const { appendAudit } = require(dist('libs/audit/index.js'));
  const client = new Client({ connectionString: DATABASE_URL, application_name: 'bench-audit' });
  await client.connect();
  try {
    await client.query(`SET search_path TO "${schema}"`);
    const tx = inTransaction(client);
    const decisions = AUDIT_DECISIONS;
    const drafts = (i) =>
      ['answer', 'run', 'result'].map((kind) => ({
        at: new Date().toISOString(),
        kind,
        sessionId: `slack-bench-audit-${i}`,
        callId: 'call_2_1',
        who: kind === 'answer' ? { id: 'UBENCH' } : null,
        via: null,
        argumentsHash: null,
        detail: { seq: i },
      }));
    const bare = [];
    const added = [];
    for (let i = 0; i < decisions; i += 1) {
      let t = performance.now();
      await client.query('BEGIN');
      await client.query('COMMIT');
      const empty = performance.now() - t;
      bare.push(empty);
      t = performance.now();
      await client.query('BEGIN');
      await appendAudit(tx, drafts(i));
      await client.query('COMMIT');
      added.push(Math.max(0, performance.now() - t - empty));
    }
    bare.sort((a, b) => a - b);
    added.sort((a, b) => a - b);
    const [{ count }] = await tx.query('SELECT count(*)::int AS count FROM audit_log');
    return {
      decisions,
      perDecision: 3,
      p50: percentile(added, 50),
      p99: percentile(added, 99),
      bareP50: percentile(bare, 50),
      entries: count - decisions * 3,
    };
  } finally {
    await client.end();
  }
}

// ── G4: decisions per second with and without the audit append ───────────────────────
//
// The database side of a turn, the part the audit trail adds to: each decision is one
// transaction appending a click decision's journal events (answer, start, result, reply), and
// in the second run also its audit entries (answer, run, result), inserted unchained.
// `concurrency` connections decide at once, as the scheduler's sessions do; meanwhile one
// more connection seals (links the entries into the day's chain) every SEAL_MS, as the leader
// does, and the figures say how far behind the chain was when the decisions stopped and how
// long it took to catch up.
async function auditThroughput() {
  const { appendAudit, sealAudit } = require(dist('libs/audit/index.js'));
  const concurrency = AUDIT_CONCURRENCY;
  const decisions = Math.max(AUDIT_DECISIONS, concurrency);
  const eventsPerDecision = 4;
  const connect = async (name) => {
    const client = new Client({ connectionString: DATABASE_URL, application_name: name });
    await client.connect();
    await client.query(`SET search_path TO "${schema}"`);
    return client;
  };
  const clients = [];
  for (let c = 0; c < concurrency; c += 1) clients.push(await connect('bench-audit-tps'));
  const sealerClient = await connect('bench-audit-sealer');
  const sealer = {
    query: async (sql, params) => (await sealerClient.query(sql, params)).rows,
    transaction: async (work) => {
      await sealerClient.query('BEGIN');
      try {
        const result = await work(sealer);
        await sealerClient.query('COMMIT');
        return result;
      } catch (error) {
        await sealerClient.query('ROLLBACK');
        throw error;
      }
    },
  };
  let sealMs = 0;
  let sealed = 0;
  const seal = async () => {
    const t = performance.now();
    sealed += await sealAudit(sealer);
    sealMs += performance.now() - t;
  };
  let runs = 0;
  const run = async (withAudit) => {
    runs += 1;
    const tag = runs;
    let next = 0;
    let appendMs = 0;
    let sealing = withAudit;
    const ticks = (async () => {
      while (sealing) {
        await seal();
        await new Promise((resolve) => setTimeout(resolve, SEAL_MS));
      }
    })();
    const started = performance.now();
    await Promise.all(
      clients.map(async (client, c) => {
        const tx = inTransaction(client);
        for (let i = next++; i < decisions; i = next++) {
          const sessionId = `slack-bench-tps-${tag}-${c}-${i}`;
          await client.query('BEGIN');
          await client.query(
            `INSERT INTO session_events (session_id, seq, type, data, occurred_at)
             SELECT $1, g, 'ToolCallRecorded', '{"type":"ToolCallRecorded"}'::jsonb, now()
             FROM generate_series(1, $2) AS g`,
            [sessionId, eventsPerDecision],
          );
          if (withAudit) {
            const t = performance.now();
            await appendAudit(
              tx,
              ['answer', 'run', 'result'].map((kind) => ({
                at: new Date().toISOString(),
                kind,
                sessionId,
                callId: 'call_2_1',
                who: kind === 'answer' ? { id: 'UBENCH' } : null,
                via: kind === 'answer' ? 'click' : null,
                argumentsHash: null,
                detail: { seq: i },
              })),
            );
            appendMs += performance.now() - t;
          }
          await client.query('COMMIT');
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    sealing = false;
    await ticks;
    const [{ backlog }] = await sealer.query(
      'SELECT count(*)::int AS backlog FROM audit_log WHERE hash IS NULL',
    );
    const t = performance.now();
    await seal();
    return {
      perSecond: decisions / seconds,
      appendMs: appendMs / decisions,
      backlog,
      catchUpMs: performance.now() - t,
    };
  };
  try {
    // One audit run first, so today's head row exists before the timed runs.
    await run(true);
    const without = await run(false);
    sealMs = 0;
    sealed = 0;
    const withAudit = await run(true);
    return {
      concurrency,
      decisions,
      eventsPerDecision,
      entriesPerDecision: 3,
      without: without.perSecond,
      with: withAudit.perSecond,
      appendMs: withAudit.appendMs,
      backlog: withAudit.backlog,
      catchUpMs: withAudit.catchUpMs,
      sealedPerSecond: sealed / (sealMs / 1000),
    };
  } finally {
    await Promise.all([...clients, sealerClient].map((client) => client.end()));
  }
}

// ── click → Resolved on a long session versus a fresh one ───────────────────────────────

/** Subscribes to the outputs stream's subjects and hands each decoded output to `onOutput`. */
function watchOutputs(onOutput) {
  return nc.subscribe(`${prefix}.out.>`, {
    callback: (_e, m) => onOutput(JSON.parse(new TextDecoder().decode(m.data)), performance.now()),
  });
}

async function longSessionClicks(db) {
  // One session of LONG_EVENTS events, built by the real decider: rounds of a gated
  // write_note that is approved, run and answered (7 events each), parked at the end.
  const conversation = conversationOf('long');
  const sessionId = protocol.deriveSessionId(conversation);
  const journal = [];
  let state = replay(sessionId, []);
  // The scripted model reads only the tail of the history; the whole would cost O(n^2) here.
  const source = async (through) => journal.slice(-16).filter((e) => e.seq <= through);
  const now = new Date().toISOString();
  let n = 0;
  const decide = async (decision) => {
    const recorder = new SessionRecorder(state, now, undefined, source);
    decision(recorder);
    await driveTurn(recorder, deps);
    for (const r of recorder.recorded)
      journal.push({ seq: r.seq, occurredAt: r.occurredAt, event: r.event });
    state = recorder.current;
  };
  const envelope = () => ({
    v: 1,
    id: `long-${(n += 1)}`,
    sessionId,
    conversation,
    occurredAt: now,
  });
  const park = () =>
    decide((r) =>
      decideUserMessage(r, {
        ...envelope(),
        type: 'UserMessage',
        sender: { id: 'UBENCH' },
        text: `!write_note {"text":"n${n}"}`,
      }),
    );
  const pendingCall = () => state.turn.batch.gated.at(-1).callId;
  await park();
  while (journal.length + 7 <= LONG_EVENTS) {
    const callId = pendingCall();
    await decide((r) =>
      decideResponse(r, {
        ...envelope(),
        type: 'ToolInteractionResponse',
        callId,
        optionKey: 'approve_once',
        sender: { id: 'UBENCH' },
      }),
    );
    await park();
  }
  const fresh = [];
  for (let i = 0; i <= LONG_CLICKS; i += 1) fresh.push(await parkedSession(`fresh${i}`));
  await seed(db, [{ sessionId, conversation, recorded: journal }, ...fresh]);

  const service = startService();
  await ready();
  const requests = new Map([[sessionId, pendingCall()]]);
  const resolved = new Map();
  const replies = new Map();
  const sub = watchOutputs((output, at) => {
    if (output.type === 'ToolInteractionRequest') requests.set(output.sessionId, output.callId);
    if (output.type === 'ToolInteractionResolved')
      resolved.set(`${output.sessionId}/${output.callId}`, at);
    if (output.type === 'TextOutput' && output.role === 'assistant')
      replies.set(output.sessionId, (replies.get(output.sessionId) ?? 0) + 1);
  });
  const js = jetstream(nc);
  const subjects = new protocol.Subjects(prefix);
  const send = (command) =>
    js.publish(protocol.commandSubject(subjects, command), protocol.encodeMessage(command), {
      msgID: command.id,
    });
  const click = async (session, callId) => {
    const command = {
      type: 'ToolInteractionResponse',
      v: 1,
      id: `click-${randomBytes(6).toString('hex')}`,
      sessionId: session.sessionId,
      conversation: session.conversation,
      occurredAt: new Date().toISOString(),
      callId,
      optionKey: 'approve_once',
      sender: { id: 'UBENCH' },
    };
    const sent = performance.now();
    await send(command);
    const key = `${session.sessionId}/${callId}`;
    const repliesBefore = replies.get(session.sessionId) ?? 0;
    await until(`resolved ${key}`, async () => resolved.has(key), 30_000);
    const ms = resolved.get(key) - sent;
    // Its turn (the tool, the model's answer) ends before anything else is measured.
    await until('the reply', async () => (replies.get(session.sessionId) ?? 0) > repliesBefore);
    return ms;
  };
  const repark = async () => {
    const before = requests.get(sessionId);
    await send({
      type: 'UserMessage',
      v: 1,
      id: `long-msg-${randomBytes(6).toString('hex')}`,
      sessionId,
      conversation,
      occurredAt: new Date().toISOString(),
      sender: { id: 'UBENCH' },
      text: '!write_note {"text":"again"}',
    });
    await until('the long session parked again', async () => requests.get(sessionId) !== before);
  };
  const longLatencies = [];
  const freshLatencies = [];
  for (let i = 0; i <= LONG_CLICKS; i += 1) {
    const longMs = await click({ sessionId, conversation }, requests.get(sessionId));
    await repark();
    const freshMs = await click(fresh[i], 'call_2_1');
    // The first of each warms the process (and builds the long session's state row).
    if (i > 0) {
      longLatencies.push(longMs);
      freshLatencies.push(freshMs);
    }
  }
  sub.unsubscribe();
  await stop(service);
  const figures = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  };
  return { events: journal.length, long: figures(longLatencies), fresh: figures(freshLatencies) };
}

// ── turns/s against a model answering after MODEL_MS ─────────────────────────────────────

async function startModelStub() {
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, 'slow-model.stub.mjs'), String(MODEL_MS)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      const match = /listening (\d+)/.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`model stub exited ${code}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${base}/v1`,
    stats: async () => (await fetch(`${base}/stats`)).json(),
    reset: () => fetch(`${base}/reset`, { method: 'POST' }),
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** The session service's own user + system CPU, in ms: what a turn costs it, beside its database's. */
function serviceCpuMs(pid) {
  return benchFigures.cpuMsFromProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

async function turnsWithSlowModel(db) {
  const stub = await startModelStub();
  const service = startService({
    MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: stub.baseUrl,
    MODEL: 'bench-1s',
  });
  await ready();
  const js = jetstream(nc);
  const subjects = new protocol.Subjects(prefix);
  const runs = [];
  try {
    for (const [r, count] of CONVERSATIONS.entries()) {
      const lullMs = r > 0 ? LULL_MS : 0;
      // A bench waits on purpose here: the lull is what is measured, not a condition.
      if (lullMs > 0) await new Promise((resolve) => setTimeout(resolve, lullMs));
      await stub.reset();
      const backendsBefore = await backendCpuMs(db, [service.child.pid]);
      const serviceCpuBefore = serviceCpuMs(service.child.pid);
      const pending = new Set();
      const commands = [];
      for (let i = 0; i < count; i += 1) {
        const conversation = conversationOf(`turns${r}x${i}`);
        const sessionId = protocol.deriveSessionId(conversation);
        pending.add(sessionId);
        commands.push({
          type: 'UserMessage',
          v: 1,
          id: `turn-${r}-${i}`,
          sessionId,
          conversation,
          occurredAt: new Date().toISOString(),
          sender: { id: 'UBENCH' },
          text: `question ${i}`,
        });
      }
      let lastReplyAt = 0;
      const sub = watchOutputs((output, at) => {
        if (
          output.type === 'TextOutput' &&
          output.role === 'assistant' &&
          pending.delete(output.sessionId)
        )
          lastReplyAt = at;
      });
      let peakRss = rssMb(service.child.pid);
      const sampler = setInterval(
        () => (peakRss = Math.max(peakRss, rssMb(service.child.pid))),
        50,
      );
      const started = performance.now();
      await Promise.all(
        commands.map((command) =>
          js.publish(protocol.commandSubject(subjects, command), protocol.encodeMessage(command), {
            msgID: command.id,
          }),
        ),
      );
      await until(`${count} replies`, async () => pending.size === 0, 300_000);
      clearInterval(sampler);
      sub.unsubscribe();
      // A backend opened during the run counts whole: its start is part of the burst's cost.
      const backendsAfter = await backendCpuMs(db, [service.child.pid]);
      const serviceCpuMsPerTurn = (serviceCpuMs(service.child.pid) - serviceCpuBefore) / count;
      const seconds = (lastReplyAt - started) / 1000;
      const { peak } = await stub.stats();
      runs.push({
        conversations: count,
        seconds,
        turnsPerSecond: count / seconds,
        lullMs,
        databaseCpuMsPerTurn: benchFigures.backendCpuMsPerOutput(
          backendsBefore,
          backendsAfter,
          count,
        ),
        backends: backendsAfter.size,
        serviceCpuMsPerTurn,
        peakModelCalls: peak,
        peakRss,
      });
    }
  } finally {
    await stop(service);
    await stub.stop();
  }
  return { runs, maxConcurrency: 256 };
}
