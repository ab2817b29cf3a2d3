import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import { deriveSessionId, Subjects } from '@tollgate/protocol';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { SESSION_SERVICE_MIGRATIONS } from '../../../apps/session-service/src/journal/session-journal.migration';
import { SessionStore } from '../../../apps/session-service/src/journal/session-store';
import { ScriptedModelClient } from '../../../apps/session-service/src/model/scripted-model.client';
import { decideUserMessage } from '../../../apps/session-service/src/session/domain/session.decider';
import { defaultToolPolicy } from '../../../apps/session-service/src/tools/tool-policy';
import { builtInTools } from '../../../apps/session-service/src/tools/tool-registry';
import { freshConversation, userMessage } from '../../support/commands';
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
      await decideUserMessage(recorder, userMessage(conversation, 'hi'), deps);
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
});
