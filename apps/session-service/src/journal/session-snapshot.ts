import { fromJsonbValue, queryPrepared, toJsonbArrayText } from '@tollgate/persistence';
import {
  JOURNAL_TAIL_SQL,
  type JournalRow,
  loadedSession,
  type SessionState,
  STATE_FORMAT,
} from '@tollgate/session-read-model';
import type { EntityManager } from 'typeorm';
import { platformOf } from './command-ledger';
import { SessionUnreplayable } from './decision-errors';

export type OpenedSession =
  | { readonly kind: 'quarantined' | 'duplicate' }
  | {
      readonly kind: 'loaded';
      readonly state: SessionState;
      /** The settled calls `settled_calls` already holds (a replay knows them all). */
      readonly settledStored: Readonly<Record<string, boolean>>;
    };

/**
 * Everything a decision reads first, in one round trip: whether the session is quarantined,
 * whether the command was already decided, and the session as of its last commit — its state
 * row plus the events after it. Costs the events since the row was written (none, normally),
 * not the whole journal.
 */
export async function openSession(
  manager: EntityManager,
  sessionId: string,
  commandId: string | undefined,
  callId?: string,
): Promise<OpenedSession> {
  // Prepared: every command opens its session with it (queryPrepared).
  const [row] = await queryPrepared<{
    quarantined: boolean;
    seen: boolean;
    state: SessionState | null;
    settled: boolean | null;
    tail: JournalRow[];
  }>(
    manager,
    'tollgate_session_open',
    `SELECT
       EXISTS (SELECT 1 FROM quarantined_sessions WHERE session_id = $1) AS quarantined,
       ($2::text IS NOT NULL
         AND EXISTS (SELECT 1 FROM processed_commands
                     WHERE platform = $4 AND command_id = $2)) AS seen,
       s.state,
       (SELECT answered FROM settled_calls
        WHERE session_id = $1 AND call_id = $5) AS settled,
       ${JOURNAL_TAIL_SQL} AS tail
     FROM (SELECT 1) AS one
     LEFT JOIN session_state s ON s.session_id = $1 AND s.format = $3`,
    [sessionId, commandId ?? null, STATE_FORMAT, platformOf(sessionId), callId ?? null],
  );
  if (!row) throw new Error('the opening read returned no row');
  if (row.quarantined) return { kind: 'quarantined' };
  if (row.seen) return { kind: 'duplicate' };
  try {
    // Only the settled call the command names: a click on another needs none.
    const settled = callId !== undefined && row.settled !== null ? { [callId]: row.settled } : {};
    const loaded = loadedSession(sessionId, { state: row.state, settled, tail: row.tail });
    return { kind: 'loaded', ...loaded };
  } catch (error) {
    throw new SessionUnreplayable(sessionId, error);
  }
}

/** The state rows of this format among `ids` (a row of another format is replayed past). */
export async function stateRows(
  manager: EntityManager,
  ids: readonly string[],
): Promise<Map<string, SessionState>> {
  const rows = await manager.query<{ session_id: string; state: SessionState }[]>(
    `SELECT session_id, state FROM session_state
     WHERE session_id = ANY($1::text[]) AND format = $2`,
    [ids, STATE_FORMAT],
  );
  return new Map(rows.map((r) => [r.session_id, fromJsonbValue<SessionState>(r.state)]));
}

/**
 * Writes each state row, without its settled calls, and the calls settled since
 * `settledBefore` to `settled_calls`, where a late click looks its call up.
 */
export async function saveStates(
  manager: EntityManager,
  entries: readonly {
    readonly state: SessionState;
    readonly settledBefore: Readonly<Record<string, boolean>>;
  }[],
): Promise<void> {
  const settled = entries.flatMap(({ state, settledBefore }) =>
    Object.entries(state.settledCalls)
      .filter(([callId]) => !Object.hasOwn(settledBefore, callId))
      .map(([callId, answered]) => ({ sessionId: state.sessionId, callId, answered })),
  );
  if (settled.length > 0) {
    await queryPrepared(
      manager,
      'tollgate_settled_calls_save',
      `INSERT INTO settled_calls (session_id, call_id, answered)
       SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[])
       ON CONFLICT (session_id, call_id) DO UPDATE SET answered = EXCLUDED.answered`,
      [
        settled.map((c) => c.sessionId),
        settled.map((c) => c.callId),
        settled.map((c) => c.answered),
      ],
    );
  }
  const states = entries.map(({ state }) => ({ ...state, settledCalls: {} }));
  // Prepared, as every statement a decision commits with (queryPrepared).
  await queryPrepared(
    manager,
    'tollgate_session_state_save',
    `INSERT INTO session_state (session_id, version, format, state)
     SELECT s.session_id, s.version, $4, j.state
     FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS s(session_id, version, n)
       JOIN jsonb_array_elements($3::jsonb) WITH ORDINALITY AS j(state, n) USING (n)
     ON CONFLICT (session_id) DO UPDATE
       SET version = EXCLUDED.version, format = EXCLUDED.format, state = EXCLUDED.state,
           updated_at = now()`,
    [
      states.map((s) => s.sessionId),
      states.map((s) => s.version),
      toJsonbArrayText(states),
      STATE_FORMAT,
    ],
  );
}
