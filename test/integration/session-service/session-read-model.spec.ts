import { createDataSource, fromJsonbValue, prepareSchemaAndMigrate } from '@tollgate/persistence';
import { deriveSessionId, Subjects } from '@tollgate/protocol';
import {
  type JournaledEvent,
  replay,
  SESSION_SCHEMA_MIGRATIONS,
  type SessionEvent,
  STATE_FORMAT,
} from '@tollgate/session-read-model';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { SessionStore } from '../../../apps/session-service/src/journal/session-store';
import { defaultDeps } from '../../../apps/session-service/src/session/domain/testing/session-given';
import {
  decideResponse,
  decideUserMessage,
} from '../../../apps/session-service/src/session/domain/session.decider';
import { readSession } from '../../../apps/tollgate-cli/src/sessions/session-view.reader';
import { driveTurn } from '../../../apps/session-service/src/session/drive-turn';
import { freshConversation, response, userMessage } from '../../support/commands';
import { createTestSchema } from '../../support/database';
import { uniqueToken } from '../../support/unique';

/**
 * The operator CLI and the service load a session through one read model: the CLI's former
 * copy of the load put back no settled calls, so it showed a state no replay gives.
 */
describe('D5 — one session load for the service and the operator CLI', () => {
  const schema = createTestSchema('d5rm');
  let dataSource: DataSource;
  let store: SessionStore;

  beforeAll(async () => {
    dataSource = createDataSource({
      url: schema.url,
      schema: schema.schema,
      migrations: SESSION_SCHEMA_MIGRATIONS,
      applicationName: 'd5-read-model',
      poolSize: 2,
    });
    await dataSource.initialize();
    await prepareSchemaAndMigrate(dataSource, pino({ level: 'silent' }));
    store = new SessionStore(dataSource, new Subjects('d5rm'), `outbox_${schema.schema}`);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await schema.drop();
  });

  it("D5 the CLI's view of a session with a settled call is the state a replay from the first event gives", async () => {
    const conversation = freshConversation('slack');
    const sessionId = deriveSessionId(conversation);
    const deps = defaultDeps();
    await store.decide(sessionId, uniqueToken('msg'), (recorder) => {
      decideUserMessage(recorder, userMessage(conversation, '!write_note {"text":"d5"}'));
      return driveTurn(recorder, deps);
    });
    const [pending] = await dataSource.query<{ call_id: string }[]>(
      `SELECT call_id FROM pending_approvals WHERE session_id = $1`,
      [sessionId],
    );
    expect(pending).toBeDefined();
    const click = response(conversation, pending.call_id, 'approve_once');
    await store.decide(sessionId, click.id, (recorder) => {
      decideResponse(recorder, click);
      return driveTurn(recorder, deps);
    });
    // The next turn moves the answered call from `requested` to the settled calls.
    await store.decide(sessionId, uniqueToken('msg'), (recorder) => {
      decideUserMessage(recorder, userMessage(conversation, 'thanks'));
      return driveTurn(recorder, deps);
    });

    const rows = await dataSource.query<{ seq: number; data: SessionEvent; occurred_at: Date }[]>(
      `SELECT seq, data, occurred_at FROM session_events WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    );
    const replayed = replay(
      sessionId,
      rows.map((r): JournaledEvent => ({
        seq: r.seq,
        event: fromJsonbValue<SessionEvent>(r.data),
        occurredAt: r.occurred_at.toISOString(),
      })),
    );
    expect(replayed.settledCalls).toEqual({ [pending.call_id]: true });
    // The view is built on the state row (which leaves settled calls to `settled_calls`).
    const [row] = await dataSource.query<{ version: number; format: number }[]>(
      `SELECT version, format FROM session_state WHERE session_id = $1`,
      [sessionId],
    );
    expect(row).toEqual({ version: rows.length, format: STATE_FORMAT });

    const read = await readSession(dataSource, sessionId);
    if (read.kind !== 'found') throw new Error(`the CLI read ${read.kind}`);
    expect(read.view.stateRow?.version).toBe(rows.length);
    expect(read.view.state).toEqual(replayed);
  });
});
