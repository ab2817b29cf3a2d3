import fc from 'fast-check';
import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import { deriveSessionId, Subjects } from '@tollgate/protocol';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { SESSION_SERVICE_MIGRATIONS } from '@tollgate/session-read-model';
import { SessionStore } from '../../../apps/session-service/src/journal/session-store';
import { historyOf } from '../../../apps/session-service/src/session/domain/provider-history';
import { freshConversation } from '../../support/commands';
import { createTestSchema, withClient } from '../../support/database';

describe('X8 — the session journal holds any text', () => {
  const schema = createTestSchema('jesc');
  let dataSource: DataSource;
  let store: SessionStore;

  beforeAll(async () => {
    dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: SESSION_SERVICE_MIGRATIONS,
      applicationName: 'journal-escaping-test',
      poolSize: 2,
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, pino({ level: 'silent' }));
    store = new SessionStore(dataSource, new Subjects('jesc'), `outbox_${schema.schema}`);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await schema.drop();
  });

  // Every UTF-16 code unit, so NUL, lone high and low surrogates and `%` come up often.
  const anyText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.constantFrom('hi\u0000<1>', 'a\ud800', '\udc00b', '%00', '%uD800', '100%', '\ud83d\ude00'),
  );

  it('X8 any message text, sender name and tool result survives the round trip and never fails a write', async () => {
    await fc.assert(
      fc.asyncProperty(anyText, anyText, anyText, async (text, displayName, result) => {
        const conversation = freshConversation('mattermost');
        const sessionId = deriveSessionId(conversation);
        const sender = { id: 'U1', displayName };
        await store.decide(sessionId, undefined, (recorder) => {
          recorder.record({ type: 'SessionStarted', conversation });
          recorder.record({
            type: 'UserMessageReceived',
            commandId: 'c1',
            sender,
            text,
            principal: 'user',
          });
          recorder.record({ type: 'TurnCompleted', reply: result }, [
            { type: 'TextOutput', text: result, role: 'assistant' },
          ]);
        });
        // Through the state row and the history the model is shown, both read back escaped.
        const state = await dataSource.transaction(async (manager) => {
          const opened = await store.open(manager, sessionId, undefined);
          if (opened.kind !== 'loaded') throw new Error(`session ${opened.kind}`);
          return opened.state;
        });
        const history = historyOf(await store.historySource(sessionId)(1_000_000));
        expect(history).toEqual([
          { role: 'user', content: text },
          { role: 'assistant', content: result },
        ]);
        expect(state.turnMessage?.sender).toEqual(sender);
        // The outbox keeps the exact JSON text published, escapes and all.
        const [row] = await withClient((client) =>
          client
            .query<{ payload: string }>(
              `SELECT payload FROM "${schema.schema}".outbox WHERE session_id = $1`,
              [sessionId],
            )
            .then((r) => r.rows),
        );
        expect((JSON.parse(row?.payload ?? '{}') as { text?: string }).text).toBe(result);
      }),
      { seed: 9008, numRuns: 150 },
    );
  });
});
