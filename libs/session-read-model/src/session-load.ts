import { fromJsonbValue } from '@tollgate/persistence';
import type { JournaledEvent, SessionEvent } from './session-event';
import { evolve, initialSessionState, type SessionState } from './session-state';

/**
 * The shape of a `session_state` row. Bump it whenever SessionState changes: rows of another
 * format are ignored and the journal replayed, so a parked batch never depends on a cached
 * shape an older version wrote.
 */
export const STATE_FORMAT = 6;

/** One `session_events` row as a query returns it. */
export interface JournalRow {
  readonly seq: number;
  readonly data: SessionEvent;
  readonly occurred_at: Date | string;
}

/**
 * The events after the state row aliased `s` (all of them without one), oldest first, as one
 * JSON array: with the row in the same statement, the load is one round trip. `$1` is the
 * session id.
 */
export const JOURNAL_TAIL_SQL = `(SELECT coalesce(json_agg(json_build_object(
          'seq', e.seq, 'data', e.data, 'occurred_at', e.occurred_at) ORDER BY e.seq),
        '[]'::json)
   FROM session_events e
   WHERE e.session_id = $1 AND e.seq > coalesce(s.version, 0))`;

/** What a load read: the state row of STATE_FORMAT (if any), settled calls, the tail. */
export interface StoredSession {
  readonly state: SessionState | null;
  /**
   * Calls read from `settled_calls`, which the state row leaves out (they would grow with
   * the session): the service reads only the call a command names, an operator's view all.
   */
  readonly settled: Readonly<Record<string, boolean>>;
  readonly tail: readonly JournalRow[];
}

/**
 * The session as of its last commit, the way the service decides its next command on it:
 * the state row with its settled calls put back, plus the events after it folded with
 * `evolve`. Without a row the journal is replayed from the start, which knows every settled
 * call. Throws what `evolve` throws on a journal this build cannot replay.
 */
export function loadedSession(
  sessionId: string,
  stored: StoredSession,
): { readonly state: SessionState; readonly settledStored: Readonly<Record<string, boolean>> } {
  const row = stored.state ? fromJsonbValue<SessionState>(stored.state) : undefined;
  const settledStored = row ? stored.settled : {};
  const base = row
    ? { ...row, settledCalls: { ...row.settledCalls, ...settledStored } }
    : initialSessionState(sessionId);
  return { state: stored.tail.map(journaled).reduce(evolve, base), settledStored };
}

export function journaled(row: JournalRow): JournaledEvent {
  return {
    seq: row.seq,
    event: fromJsonbValue<SessionEvent>(row.data),
    occurredAt: new Date(row.occurred_at).toISOString(),
  };
}
