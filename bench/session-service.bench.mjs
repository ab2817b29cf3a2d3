// Session service figures (issue 5): recovery of 10,000 parked approvals, click → Resolved
// latency over 1,000 clicks, and the idle RSS of a service holding 10,000 parked sessions.
// Runs the built service (`npm run build` first) against the local NATS and PostgreSQL,
// on its own subject prefix and schema, and removes both at the end. Prints figures; asserts
// nothing. Usage: npm run bench:session [-- --sessions 10000 --clicks 1000 | --smoke]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname, '..');
const dist = (p) => join(root, 'dist', p);
const protocol = require(dist('libs/protocol/index.js'));
const { SessionRecorder } = require(
  dist('apps/session-service/session/domain/session-recorder.js'),
);
const { replay } = require(dist('apps/session-service/session/domain/session-state.js'));
const { decideUserMessage } = require(
  dist('apps/session-service/session/domain/session.decider.js'),
);
const { ScriptedModelClient } = require(
  dist('apps/session-service/model/scripted-model.client.js'),
);
const { builtInTools } = require(dist('apps/session-service/tools/tool-registry.js'));
const { defaultToolPolicy } = require(dist('apps/session-service/tools/tool-policy.js'));
const { noToolGrants } = require(dist('apps/session-service/session/domain/tool-grants.port.js'));
const { connect } = require('@nats-io/transport-node');
const { jetstream, jetstreamManager } = require('@nats-io/jetstream');
const { Client } = require('pg');

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
// --smoke: tiny counts, so `npm test` proves the bench still runs (test/bench).
const SMOKE = process.argv.includes('--smoke');
const SESSIONS = arg('sessions', SMOKE ? 20 : 10_000);
const CLICKS = Math.min(arg('clicks', SMOKE ? 5 : 1_000), SESSIONS);
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const token = randomBytes(4).toString('hex');
const prefix = `bench${token}`;
const schema = `bench_${token}`;
const port = 39_000 + Math.floor(Math.random() * 1000);
const env = {
  PATH: process.env.PATH,
  DATABASE_URL,
  DATABASE_SCHEMA: schema,
  NATS_URL,
  TOLLGATE_SUBJECT_PREFIX: prefix,
  PORT: String(port),
  LOG_LEVEL: 'warn',
};

function startService() {
  const child = spawn(process.execPath, [dist('apps/session-service/main.js')], {
    env,
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

/** The journal of a session parked on one write_note approval, built by the real decider. */
async function parkedSession(i) {
  const conversation = {
    platform: 'slack',
    workspaceId: 'TBENCH',
    channelId: `C${i}`,
    threadId: `${i}.0001`,
  };
  const sessionId = protocol.deriveSessionId(conversation);
  const recorder = new SessionRecorder(replay(sessionId, []), new Date().toISOString());
  await decideUserMessage(
    recorder,
    {
      type: 'UserMessage',
      v: 1,
      id: `seed-${i}`,
      sessionId,
      conversation,
      occurredAt: new Date().toISOString(),
      sender: { id: 'UBENCH' },
      text: `!write_note {"text":"note ${i}"}`,
    },
    deps,
  );
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

  // Recovery: from process start until every refresh is in the output stream.
  const jsm = await jetstreamManager(nc);
  service = startService();
  await until('all refreshes published', async () => {
    const info = await jsm.streams.info(names.outputs);
    return info.state.messages >= SESSIONS;
  });
  const recoverySeconds = (performance.now() - service.startedAt) / 1000;
  await ready();

  global.gc?.();
  const idleRss = rssMb(service.child.pid);

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

  console.log('');
  console.log(
    `session-service figures (${SESSIONS} parked sessions, ${CLICKS} clicks, this machine: ${(await import('node:os')).cpus().length} cores)`,
  );
  console.log(
    `  recovery: ${SESSIONS} refreshes published in ${recoverySeconds.toFixed(2)} s = ${Math.round(SESSIONS / recoverySeconds)} per second (target >= 2000/s, includes process start)`,
  );
  console.log(
    `  click -> Resolved: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms (target p99 <= 50 ms)`,
  );
  console.log(
    `  idle RSS holding ${SESSIONS} parked sessions: ${idleRss.toFixed(0)} MB (target <= 200 MB)`,
  );
  await stop(service);
} finally {
  for (const name of [names.commands, names.outputs, names.deadLetters]) {
    await (await jetstreamManager(nc)).streams.delete(name).catch(() => false);
  }
  await nc.close();
  await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await db.end();
}
