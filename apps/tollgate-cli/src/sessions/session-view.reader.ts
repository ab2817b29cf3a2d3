import {
  JOURNAL_TAIL_SQL,
  type JournalRow,
  loadedSession,
  type SessionState,
  STATE_FORMAT,
} from '@tollgate/session-read-model';
import type { DataSource } from 'typeorm';

/** A session as the session-service would load it, and what surrounds it in its schema. */
export interface SessionView {
  readonly state: SessionState;
  /** The `session_state` row the state was built on; undefined: replayed from the start. */
  readonly stateRow: { readonly version: number; readonly updatedAt: Date } | undefined;
  readonly events: number;
  /** When each pending call's ToolApprovalRequested was journaled, by seq. */
  readonly requestedAt: ReadonlyMap<number, Date>;
  readonly quarantined: { readonly reason: string; readonly at: Date } | undefined;
  readonly queuedCommands: number;
  /** Whether the projection lists the session as parked (it should iff the turn waits). */
  readonly projectedPending: readonly string[];
}

export type SessionRead =
  | { readonly kind: 'found'; readonly view: SessionView }
  | { readonly kind: 'not_found' }
  | { readonly kind: 'unreplayable'; readonly error: string; readonly events: number };

/**
 * Loads the session the way the service does (the shared `loadedSession`: its state row of
 * the current format plus the events after it, folded with the service's own pure `evolve`),
 * so what the operator sees is what the next command would be decided on. The service puts
 * back only the settled call a command names; a view puts back all of `settled_calls`, so it
 * shows the state a replay from the first event would.
 */
export async function readSession(dataSource: DataSource, sessionId: string): Promise<SessionRead> {
  const [row] = await dataSource.query<
    {
      state: SessionState | null;
      version: number | null;
      updated_at: Date | null;
      events: number;
      settled: Record<string, boolean>;
      quarantine_reason: string | null;
      quarantined_at: Date | null;
      queued: number;
      pending: string[];
      tail: JournalRow[];
    }[]
  >(
    `SELECT s.state, s.version, s.updated_at,
       (SELECT count(*)::int FROM session_events WHERE session_id = $1) AS events,
       (SELECT coalesce(json_object_agg(call_id, answered), '{}'::json)
        FROM settled_calls WHERE session_id = $1) AS settled,
       q.reason AS quarantine_reason, q.quarantined_at,
       (SELECT count(*)::int FROM session_inbox WHERE session_id = $1) AS queued,
       (SELECT coalesce(array_agg(call_id ORDER BY requested_seq), '{}')
        FROM pending_approvals WHERE session_id = $1) AS pending,
       ${JOURNAL_TAIL_SQL} AS tail
     FROM (SELECT 1) AS one
     LEFT JOIN session_state s ON s.session_id = $1 AND s.format = $2
     LEFT JOIN quarantined_sessions q ON q.session_id = $1`,
    [sessionId, STATE_FORMAT],
  );
  if (!row || row.events === 0) return { kind: 'not_found' };
  let state: SessionState;
  try {
    state = loadedSession(sessionId, row).state;
  } catch (error) {
    return {
      kind: 'unreplayable',
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      events: row.events,
    };
  }
  const pendingSeqs = pendingSeqsOf(state);
  const times =
    pendingSeqs.length === 0
      ? []
      : await dataSource.query<{ seq: number; occurred_at: Date }[]>(
          `SELECT seq, occurred_at FROM session_events WHERE session_id = $1 AND seq = ANY($2::int[])`,
          [sessionId, pendingSeqs],
        );
  return {
    kind: 'found',
    view: {
      state,
      stateRow:
        row.version === null || row.updated_at === null
          ? undefined
          : { version: row.version, updatedAt: new Date(row.updated_at) },
      events: row.events,
      requestedAt: new Map(times.map((t) => [t.seq, new Date(t.occurred_at)])),
      quarantined:
        row.quarantine_reason === null || row.quarantined_at === null
          ? undefined
          : { reason: row.quarantine_reason, at: new Date(row.quarantined_at) },
      queuedCommands: row.queued,
      projectedPending: row.pending,
    },
  };
}

function pendingSeqsOf(state: SessionState): number[] {
  const turn = state.turn;
  const gated = 'batch' in turn && turn.batch ? turn.batch.gated.map((g) => g.requestedSeq) : [];
  // A2: an agent session's approvals, when they were asked.
  return [...gated, ...Object.values(state.apiApprovals).map((a) => a.requestedSeq)];
}
