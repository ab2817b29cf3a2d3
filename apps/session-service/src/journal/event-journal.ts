import { queryPrepared, toJsonbArrayText } from '@tollgate/persistence';
import { type EntityManager, QueryFailedError } from 'typeorm';
import { appendAuditFor } from '../audit/audit-append.hook';
import { HISTORY_EVENT_TYPES, type HistorySource } from '../session/domain/provider-history';
import { journaled, type JournaledEvent, type SessionEvent } from '@tollgate/session-read-model';
import { JournalConflict } from './decision-errors';

/** A connection to read through: the pool, or the transaction a decision holds. */
export type Queryable = Pick<EntityManager, 'query'>;

/** Appends events of one or many sessions; a seq taken already is a JournalConflict. */
export async function appendEvents(
  manager: EntityManager,
  events: readonly (JournaledEvent & { sessionId: string })[],
): Promise<void> {
  try {
    // Prepared: parsing and planning this join on every append cost more than its rows.
    await queryPrepared(
      manager,
      'tollgate_events_append',
      `INSERT INTO session_events (session_id, seq, type, data, occurred_at)
       SELECT k.session_id, k.seq, k.type, d.data, k.occurred_at
       FROM unnest($1::text[], $2::int[], $3::text[], $5::timestamptz[]) WITH ORDINALITY
           AS k(session_id, seq, type, occurred_at, n)
         JOIN jsonb_array_elements($4::jsonb) WITH ORDINALITY AS d(data, n) USING (n)`,
      [
        events.map((e) => e.sessionId),
        events.map((e) => e.seq),
        events.map((e) => e.event.type),
        // One jsonb array (see toJsonbArrayText). Chat text and tool results may hold U+0000
        // or lone surrogates: see toJsonbText.
        toJsonbArrayText(events.map((e) => e.event)),
        events.map((e) => e.occurredAt),
      ],
    );
  } catch (error) {
    if (
      error instanceof QueryFailedError &&
      (error.driverError as { code?: string }).code === '23505'
    ) {
      throw new JournalConflict('a session was appended to concurrently');
    }
    throw error;
  }
  // G4: the audit entries commit with the events they describe, or not at all.
  await appendAuditFor(manager, events);
}

/** Runs a read on a connection it chooses (the pool, a held transaction, a gated slot). */
export type WithConnection = <T>(read: (connection: Queryable) => Promise<T>) => Promise<T>;

/**
 * The session's provider history through `throughSeq`: its last `turns` turns, each from its
 * user message (DEFAULT_HISTORY_TURNS says why). A session with fewer user messages (a
 * sub-agent's, which starts from its task) is read whole.
 */
export function historySourceOf(
  withConnection: WithConnection,
  sessionId: string,
  turns: number,
): HistorySource {
  return async (throughSeq) => {
    const rows = await withConnection((connection) =>
      connection.query<{ seq: number; data: SessionEvent; occurred_at: Date }[]>(
        `SELECT seq, data, occurred_at FROM session_events
         WHERE session_id = $1 AND seq <= $2 AND type = ANY($3::text[])
           AND seq >= COALESCE((
             SELECT seq FROM session_events
             WHERE session_id = $1 AND seq <= $2 AND type = 'UserMessageReceived'
             ORDER BY seq DESC OFFSET $4 LIMIT 1), 0)
         ORDER BY seq`,
        [sessionId, throughSeq, HISTORY_EVENT_TYPES, turns - 1],
      ),
    );
    return rows.map(journaled);
  };
}
