import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { deriveSessionId, SESSION_SERVICE_DURABLE, streamNames } from '@tollgate/protocol';
import { OpenAiApiFake } from '@tollgate/platform-standins';
import { freshConversation, userMessage } from '../support/commands';
import { ModelGate } from '../support/model-gate';
import { advisoryLocksHeld, backendsOf } from '../support/postgres-backends';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { waitFor } from '../support/wait-for';

/** The first key of the session store's advisory lock (SESSION_LOCK_CLASS). */
const SESSION_LOCK_CLASS = 0x7017;

function openAiEnv(api: OpenAiApiFake, extra: Record<string, string> = {}) {
  return {
    MODEL_PROVIDER: 'openai',
    OPENAI_BASE_URL: api.baseUrl,
    MODEL: 'gpt-fake',
    MODEL_RETRY_BASE_MS: '50',
    ...extra,
  };
}

const replyText = (request: { messages: readonly Record<string, unknown>[] }) =>
  `answer to ${String(request.messages.at(-1)?.content)}`;

/**
 * (process) A turn waiting on the model holds nothing: not the JetStream message, not a
 * database transaction or connection, not the session's lock. Turns in flight are bounded by
 * TOLLGATE_MAX_TURNS and calls to the provider by MODEL_MAX_CONCURRENCY, nothing else.
 */
describe('S14 — I/O outside transactions (process)', () => {
  let gate: ModelGate;
  let api: OpenAiApiFake;
  let service: SessionServiceFixture;

  beforeAll(async () => {
    gate = new ModelGate();
    api = await OpenAiApiFake.start({
      fallback: (request) => ({ gate: gate.closed, reply: { content: replyText(request) } }),
    });
    service = await SessionServiceFixture.create('s14', openAiEnv(api));
  });

  afterAll(async () => {
    gate.open();
    await service?.dispose();
    await api?.stop();
  });

  it('S14 60 turns wait on the model at once, past the consumer’s 16 slots, holding no message, transaction, connection or session lock', async () => {
    const conversations = Array.from({ length: 60 }, () => freshConversation());
    await Promise.all(conversations.map((c, i) => service.send(userMessage(c, `question ${i}`))));

    await waitFor('60 model calls outstanding at once', () => api.inFlight === 60, {
      timeoutMs: 20_000,
    });
    const jsm = await jetstreamManager(service.nc);
    const consumer = await waitFor('every command acked', async () => {
      const info = await jsm.consumers.info(
        streamNames(service.prefix).commands,
        SESSION_SERVICE_DURABLE,
      );
      return info.num_ack_pending === 0 && info.num_pending === 0 ? info : undefined;
    });
    expect(consumer.num_redelivered).toBe(0);

    const pid = service.process!.child.pid!;
    for (let sample = 0; sample < 5; sample += 1) {
      const backends = await backendsOf(pid);
      expect(backends.length).toBeGreaterThan(0);
      // 60 turns wait at once while the pool holds at most 40 connections: no turn holds one.
      // The leader's own short transactions may be caught mid-flight: the outbox relay's claim,
      // idle while JetStream acks the batch it locked, and the audit sealer's batch, idle while
      // it hashes the entries it read; a loaded machine stretches both. No other transaction
      // may be open, whatever its last statement.
      const turns = backends.filter((b) => b.inTransaction && !isLeaderHousekeeping(b.query));
      expect(turns.filter((b) => b.state === 'idle in transaction')).toEqual([]);
      expect(turns.length).toBeLessThanOrEqual(2);
      expect(
        await advisoryLocksHeld(
          backends.map((b) => b.pid),
          SESSION_LOCK_CLASS,
        ),
      ).toBe(0);
    }
    expect(api.inFlight).toBe(60);

    gate.open();
    for (const [i, conversation] of conversations.entries()) {
      const sessionId = deriveSessionId(conversation);
      const [reply] = await service.outputs.waitForOutputs('the reply', is.text('answer to'), {
        sessionId,
      });
      expect(reply.text).toBe(`answer to question ${i}`);
    }
  });
});

describe('S14 — MODEL_MAX_CONCURRENCY and TOLLGATE_MAX_TURNS (process)', () => {
  let gate: ModelGate;
  let api: OpenAiApiFake;
  let service: SessionServiceFixture;

  beforeAll(async () => {
    gate = new ModelGate();
    api = await OpenAiApiFake.start({
      fallback: (request) => ({ gate: gate.closed, reply: { content: replyText(request) } }),
    });
    service = await SessionServiceFixture.create(
      's14limits',
      openAiEnv(api, { MODEL_MAX_CONCURRENCY: '5', TOLLGATE_MAX_TURNS: '8' }),
    );
  });

  afterAll(async () => {
    gate.open();
    await service?.dispose();
    await api?.stop();
  });

  it('S14 at most MODEL_MAX_CONCURRENCY calls reach the provider and TOLLGATE_MAX_TURNS turns run; the rest wait queued, their messages acked', async () => {
    const conversations = Array.from({ length: 12 }, () => freshConversation());
    await Promise.all(conversations.map((c, i) => service.send(userMessage(c, `q${i}`))));

    await waitFor('5 calls at the provider', () => api.inFlight === 5);
    const jsm = await jetstreamManager(service.nc);
    await waitFor('every command acked', async () => {
      const info = await jsm.consumers.info(
        streamNames(service.prefix).commands,
        SESSION_SERVICE_DURABLE,
      );
      return info.num_ack_pending === 0 && info.num_pending === 0;
    });
    // The four commands past TOLLGATE_MAX_TURNS wait in the inbox, durably.
    const metrics = await (await fetch(service.process!.url('/metrics'))).text();
    expect(metrics).toMatch(/^tollgate_session_turns_in_flight 8$/m);
    expect(metrics).toMatch(/^tollgate_model_calls_in_flight 5$/m);
    expect(api.peakInFlight).toBe(5);

    gate.open();
    for (const conversation of conversations) {
      await service.outputs.waitForOutputs('the reply', is.text('answer to'), {
        sessionId: deriveSessionId(conversation),
      });
    }
    expect(api.peakInFlight).toBe(5);
    expect(api.completionRequests).toHaveLength(12);
  });
});

/** The statements of the outbox relay's claim (outbox-relay.service.ts) and the audit sealer's batch
 * (audit-sealer.ts), as pg_stat_activity shows them. */
const LEADER_HOUSEKEEPING = [
  /^\s*SELECT position, id, subject, payload, traceparent FROM outbox\b/,
  /^\s*UPDATE outbox SET sent_at = now\(\) WHERE position = ANY\b/,
  /^\s*SELECT pg_advisory_xact_lock\(hashtextextended\('tollgate\.audit_seal:/,
  /^\s*SELECT seq::text AS seq, .* FROM audit_log WHERE hash IS NULL\b/s,
  /^\s*INSERT INTO audit_days \(day, head_hash, count\)/,
  /^\s*WITH linked AS \(\s*UPDATE audit_log AS l SET n = e\.n\b/,
];

function isLeaderHousekeeping(query: string): boolean {
  return LEADER_HOUSEKEEPING.some((statement) => statement.test(query));
}

/** The SQL text of each `.query(\`…\`)` in a production source file. */
function statementsIn(path: string): string[] {
  const source = readFileSync(join(__dirname, '..', '..', path), 'utf8');
  return [...source.matchAll(/\.query(?:<[^>]*>)?\(\s*`([^`]*)`/g)].map((m) => m[1]);
}

describe('S14 — which transactions are the leader’s housekeeping', () => {
  // The patterns copy the production SQL: when it changes (as the relay's claim did when it
  // began reading traceparent), this fails here rather than S14 failing now and then.
  it('S14 the patterns match every statement of the audit sealer and the outbox relay’s claim', () => {
    const sealer = statementsIn('libs/audit/src/audit-sealer.ts').filter(
      (sql) => !sql.includes('count(*)::text AS count FROM audit_log WHERE hash IS NULL'),
    );
    expect(sealer.length).toBeGreaterThanOrEqual(4);
    for (const sql of sealer)
      expect({ sql, matched: isLeaderHousekeeping(sql) }).toEqual({ sql, matched: true });
    const relay = statementsIn('apps/session-service/src/outbox/outbox-relay.service.ts');
    const claim = relay.filter((sql) => /\bFROM outbox\b.*FOR UPDATE SKIP LOCKED/s.test(sql));
    const mark = relay.filter((sql) => /^UPDATE outbox SET sent_at/.test(sql));
    expect([...claim, ...mark].length).toBe(2);
    for (const sql of [...claim, ...mark]) expect(isLeaderHousekeeping(sql)).toBe(true);
    // A turn's own statements are not taken for housekeeping.
    expect(isLeaderHousekeeping('INSERT INTO audit_log (day, at, kind) VALUES ($1, $2, $3)')).toBe(
      false,
    );
    expect(
      isLeaderHousekeeping('INSERT INTO outbox (id, subject, payload) VALUES ($1, $2, $3)'),
    ).toBe(false);
  });
});
