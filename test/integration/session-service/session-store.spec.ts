import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import { deriveSessionId, parseApprovalDecided, Subjects } from '@tollgate/protocol';
import { anApprovalRequest } from '../../../libs/protocol/src/testing/approval-fixtures';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { SESSION_SERVICE_MIGRATIONS, STATE_FORMAT } from '@tollgate/session-read-model';
import {
  SessionStore,
  SessionUnreplayable,
} from '../../../apps/session-service/src/journal/session-store';
import { ScriptedModelClient } from '../../../apps/session-service/src/model/scripted-model.client';
import { decideUserMessage } from '../../../apps/session-service/src/session/domain/session.decider';
import { defaultToolPolicy } from '../../../apps/session-service/src/tools/tool-policy';
import { driveTurn } from '../../../apps/session-service/src/session/drive-turn';
import { builtInTools } from '../../../apps/session-service/src/tools/tool-registry';
import { freshConversation, response, userMessage } from '../../support/commands';
import { createTestSchema, withClient } from '../../support/database';
import { noToolGrants } from '../../../apps/session-service/src/session/domain/tool-grants.port';
import { HandleCommand } from '../../../apps/session-service/src/commands/handle-command.usecase';
import { SessionScheduler } from '../../../apps/session-service/src/commands/session-scheduler';
import { waitFor } from '../../support/wait-for';

const deps = {
  model: new ScriptedModelClient(),
  tools: builtInTools(),
  policy: defaultToolPolicy(),
  grants: noToolGrants,
};

describe('session store (journal, outbox, ledger in one transaction)', () => {
  const schema = createTestSchema('store');
  let dataSource: DataSource;
  let store: SessionStore;

  beforeAll(async () => {
    dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: SESSION_SERVICE_MIGRATIONS,
      applicationName: 'store-test',
      poolSize: 4,
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, pino({ level: 'silent' }));
    store = new SessionStore(dataSource, new Subjects('storetest'), `outbox_${schema.schema}`);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await schema.drop();
  });

  const seqs = async (sessionId: string) => {
    const rows = await dataSource.query<{ seq: number }[]>(
      `SELECT seq FROM session_events WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    );
    return rows.map((r) => r.seq);
  };

  it('A2 quarantining an agent session expires each pending approval with one ApprovalDecided in the outbox', async () => {
    const request = anApprovalRequest();
    await new HandleCommand(store, deps).execute(request);
    await store.quarantine(request.sessionId, 'test: cannot be replayed');
    const rows = await dataSource.query<{ id: string; subject: string; payload: string }[]>(
      `SELECT id, subject, payload FROM outbox WHERE session_id = $1 AND id LIKE 'decision:%'`,
      [request.sessionId],
    );
    expect(rows.map((r) => [r.id, r.subject])).toEqual([
      [
        `decision:${request.approvalId}`,
        `storetest.decision.${request.clientId}.${request.approvalId}`,
      ],
    ]);
    expect(parseApprovalDecided(rows[0].payload)).toMatchObject({
      ok: true,
      value: { status: 'expired', decision: null, sessionId: request.sessionId },
    });
  });

  it('reloads and retries when another writer appended first (optimistic concurrency)', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    let attempts = 0;
    const result = await store.decide(sessionId, 'cmd-conflict', async (recorder) => {
      attempts += 1;
      if (attempts === 1) {
        // A writer that does not hold the session lock (a standby mid-takeover) wins seq 1.
        await withClient((client) =>
          client.query(
            `INSERT INTO "${schema.schema}".session_events (session_id, seq, type, data, occurred_at)
             VALUES ($1, 1, 'SessionStarted', $2, now())`,
            [sessionId, JSON.stringify({ type: 'SessionStarted', conversation })],
          ),
        );
      }
      decideUserMessage(recorder, userMessage(conversation, 'hi'));
      await driveTurn(recorder, deps);
    });
    expect(attempts).toBe(2);
    expect(result).toMatchObject({ kind: 'decided' });
    const types: { type: string }[] = await dataSource.query(
      `SELECT type FROM session_events WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    );
    expect(types.map((t) => t.type)).toEqual([
      'SessionStarted',
      'UserMessageReceived',
      'TurnCompleted',
    ]);
  });

  it('S15 the scheduler decides concurrent commands of one session in arrival order and skips a repeated command id', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    const handle = new HandleCommand(store, deps);
    const scheduler = new SessionScheduler({
      store,
      decide: (command, options) => handle.execute(command, options),
      recover: (id) => store.decide(id, undefined, () => undefined),
      failInFlight: (id) => store.decide(id, undefined, () => undefined),
      logger: pino({ level: 'silent' }),
      maxTurns: 100,
      retryBaseMs: 10,
      retryMaxMs: 100,
      deadLetter: async () => {
        throw new Error('nothing here may be dead-lettered');
      },
    });
    const messages = Array.from({ length: 6 }, (_, i) => userMessage(conversation, `m${i}`));
    const submitted = await Promise.all([...messages, messages[0]].map((m) => scheduler.submit(m)));
    // The first is decided at once; the rest arrived while it ran and were queued, not held.
    expect(submitted[0]).toBe('decided');
    expect(submitted.slice(1).every((r) => r === 'queued' || r === 'duplicate')).toBe(true);
    await waitFor('the session to be idle', () => scheduler.sessionsBusy === 0);
    // SessionStarted, then two events per message, with no gap and no repeat.
    expect(await seqs(sessionId)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    const texts: { text: string }[] = await dataSource.query(
      `SELECT data->>'text' AS text FROM session_events
       WHERE session_id = $1 AND type = 'UserMessageReceived' ORDER BY seq`,
      [sessionId],
    );
    expect(texts.map((t) => t.text)).toEqual(messages.map((m) => m.text));
    const outbox: { id: string }[] = await dataSource.query(
      `SELECT id FROM outbox WHERE session_id = $1`,
      [sessionId],
    );
    expect(outbox).toHaveLength(6);
    const inbox: unknown[] = await dataSource.query(
      `SELECT 1 FROM session_inbox WHERE session_id = $1`,
      [sessionId],
    );
    expect(inbox).toHaveLength(0);
  });

  it('S16 a long session loads from its state row, stores no context per call, and its journal grows linearly', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    const handle = new HandleCommand(store, deps);
    const round = async (i: number) => {
      const message = userMessage(conversation, `!write_note {"text":"note ${i}"}`);
      await handle.execute(message);
      const { seq } = (
        await dataSource.query<{ seq: number }[]>(
          `SELECT max(seq) AS seq FROM session_events WHERE session_id = $1`,
          [sessionId],
        )
      )[0];
      // The scripted model names the call after the seq of the message that asked for it.
      const turnSeq = seq - 2;
      await handle.execute(response(conversation, `call_${turnSeq}_1`, 'approve_once'));
    };
    const stateBytes = async () =>
      (
        await dataSource.query<{ bytes: number }[]>(
          `SELECT pg_column_size(state) AS bytes FROM session_state WHERE session_id = $1`,
          [sessionId],
        )
      )[0].bytes;
    const ROUNDS = 40;
    await round(0);
    await round(1);
    const earlyStateBytes = await stateBytes();
    for (let i = 2; i < ROUNDS; i += 1) await round(i);

    const events: { seq: number; type: string; bytes: number }[] = await dataSource.query(
      `SELECT seq, type, pg_column_size(data) AS bytes FROM session_events
       WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    );
    // SessionStarted, then 7 events per round: message, batch, request, answer, start, result, reply.
    expect(events).toHaveLength(1 + 7 * ROUNDS);
    const roundBytes = (r: number) =>
      events.slice(1 + 7 * r, 1 + 7 * (r + 1)).reduce((sum, e) => sum + e.bytes, 0);
    expect(roundBytes(ROUNDS - 1)).toBeLessThan(roundBytes(1) * 1.2);
    const withContext: unknown[] = await dataSource.query(
      `SELECT 1 FROM session_events WHERE session_id = $1 AND data ? 'turnContext'`,
      [sessionId],
    );
    expect(withContext).toHaveLength(0);

    const [row] = await dataSource.query<{ version: number; format: number; bytes: number }[]>(
      `SELECT version, format, pg_column_size(state) AS bytes FROM session_state WHERE session_id = $1`,
      [sessionId],
    );
    expect(row).toMatchObject({ version: events.length, format: STATE_FORMAT });
    // The state a decision loads does not grow with the session.
    expect(row.bytes).toBeLessThanOrEqual(earlyStateBytes + 16);

    // A late click on the first round's call: answered long ago, so only the notice.
    await handle.execute(response(conversation, 'call_2_1', 'approve_once'));
    const [late] = await dataSource.query<{ seq: number; type: string }[]>(
      `SELECT seq, type FROM session_events WHERE session_id = $1 ORDER BY seq DESC LIMIT 1`,
      [sessionId],
    );
    expect(late?.type).toBe('ToolApprovalRefused');
    const lateOutputs: { payload: string }[] = await dataSource.query(
      `SELECT payload FROM outbox WHERE id LIKE $1`,
      [`${sessionId}:${late.seq}:%`],
    );
    expect(lateOutputs.map((o) => (JSON.parse(o.payload) as { type: string }).type)).toEqual([
      'ToolInteractionRejected',
    ]);

    // An early event this version could not replay: the load never reads it...
    await dataSource.query(
      `UPDATE session_events SET data = '{"type":"TurnCompleted","reply":"x"}'
       WHERE session_id = $1 AND seq = 4`,
      [sessionId],
    );
    await round(ROUNDS);
    // ...until the state row is gone and the whole journal must be replayed.
    await dataSource.query(`DELETE FROM session_state WHERE session_id = $1`, [sessionId]);
    await expect(handle.execute(userMessage(conversation, 'hello'))).rejects.toBeInstanceOf(
      SessionUnreplayable,
    );
  });

  it('S16 a state row of another format is ignored and the journal replayed', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    const handle = new HandleCommand(store, deps);
    await handle.execute(userMessage(conversation, '!write_note {"text":"x"}'));
    await dataSource.query(
      `UPDATE session_state SET format = format - 1, state = '{"garbage":true}' WHERE session_id = $1`,
      [sessionId],
    );
    await handle.execute(response(conversation, 'call_2_1', 'approve_once'));
    const types: { type: string }[] = await dataSource.query(
      `SELECT type FROM session_events WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    );
    expect(types.map((t) => t.type).slice(-4)).toEqual([
      'ToolApprovalResolved',
      'ToolExecutionStarted',
      'ToolCallRecorded',
      'TurnCompleted',
    ]);
    const [row] = await dataSource.query<{ format: number }[]>(
      `SELECT format FROM session_state WHERE session_id = $1`,
      [sessionId],
    );
    expect(row?.format).toBe(STATE_FORMAT);
  });
});
