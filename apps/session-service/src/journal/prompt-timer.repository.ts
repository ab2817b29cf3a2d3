import type { DataSource, EntityManager } from 'typeorm';
import type { PromptTimer } from '../session/domain/prompt-timer';
import type { RecordedEvent } from '../session/domain/session-recorder';

/** A due timer as claimed: which session, and what it asks for. */
export interface ClaimedPromptTimer {
  readonly sessionId: string;
  readonly timer: PromptTimer;
}

interface TimerRow {
  session_id: string;
  call_id: string;
  kind: 'reminder' | 'deadline';
  reminder: number;
  on_deadline: 'deny' | 'expire' | null;
  due_at: Date | string;
}

/**
 * Inside a decision's transaction: one row per reminder and deadline of each prompt the
 * events request. Nothing is written for a tool whose policy sets none.
 */
export async function schedulePromptTimers(
  manager: EntityManager,
  sessionId: string,
  events: readonly RecordedEvent[],
): Promise<void> {
  const rows = events.flatMap(({ event }) => {
    const requested =
      event.type === 'ToolApprovalRequested'
        ? { callId: event.callId, timers: event.timers }
        : event.type === 'ApiApprovalRequested' && event.request !== undefined
          ? { callId: event.approvalId, timers: event.timers }
          : undefined;
    if (!requested?.timers) return [];
    const { callId } = requested;
    const { remindAt, deadline } = requested.timers;
    return [
      ...remindAt.map((dueAt, i) => ({
        callId,
        kind: 'reminder',
        n: i + 1,
        dueAt,
        on: null,
      })),
      ...(deadline
        ? [
            {
              callId,
              kind: 'deadline',
              n: 0,
              dueAt: deadline.at,
              on: deadline.onDeadline,
            },
          ]
        : []),
    ];
  });
  if (rows.length === 0) return;
  await manager.query(
    `INSERT INTO prompt_timers (session_id, call_id, kind, reminder, on_deadline, due_at)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::timestamptz[])
     ON CONFLICT DO NOTHING`,
    [
      sessionId,
      rows.map((r) => r.callId),
      rows.map((r) => r.kind),
      rows.map((r) => r.n),
      rows.map((r) => r.on),
      rows.map((r) => r.dueAt),
    ],
  );
}

/**
 * Inside a decision's transaction, when the session's pending prompts changed: the timers of
 * prompts no longer pending (answered, superseded, expired) go with them.
 */
export async function cancelPromptTimers(
  manager: EntityManager,
  sessionId: string,
  stillPending: readonly string[],
): Promise<void> {
  await manager.query(
    `DELETE FROM prompt_timers WHERE session_id = $1 AND NOT (call_id = ANY($2::text[]))`,
    [sessionId, stillPending],
  );
}

/** Claiming and settling due timers, for the poller. */
export class PromptTimerRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Claims up to `limit` timers due at `now` for `leaseMs`: rows another poller holds (locked,
   * or under an unexpired lease) are skipped, so two pollers never take the same row at once.
   * A lease that runs out (its poller died mid-decision) lets the row be claimed again.
   */
  async claimDue(now: Date, leaseMs: number, limit: number): Promise<ClaimedPromptTimer[]> {
    const raw: unknown = await this.dataSource.query(
      `UPDATE prompt_timers t SET claimed_until = $1::timestamptz + make_interval(secs => $2 / 1000.0)
       FROM (SELECT session_id, call_id, kind, reminder FROM prompt_timers
             WHERE due_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)
             ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED) due
       WHERE t.session_id = due.session_id AND t.call_id = due.call_id
         AND t.kind = due.kind AND t.reminder = due.reminder
       RETURNING t.session_id, t.call_id, t.kind, t.reminder, t.on_deadline, t.due_at`,
      [now.toISOString(), leaseMs, limit],
    );
    // TypeORM answers an UPDATE … RETURNING with [rows, count].
    const rows = (Array.isArray(raw) && Array.isArray(raw[0]) ? raw[0] : raw) as TimerRow[];
    // RETURNING keeps no order: due order, so a session's reminders precede its deadline.
    return rows
      .sort((a, b) => new Date(a.due_at).getTime() - new Date(b.due_at).getTime())
      .map(claimed);
  }

  /** The timer was decided (or found a duplicate, or a quarantined session): it is done. */
  async settle(claimedTimer: ClaimedPromptTimer): Promise<void> {
    const { sessionId, timer } = claimedTimer;
    await this.dataSource.query(
      `DELETE FROM prompt_timers
       WHERE session_id = $1 AND call_id = $2 AND kind = $3 AND reminder = $4`,
      [sessionId, timer.callId, timer.kind, timer.kind === 'reminder' ? timer.reminder : 0],
    );
  }
}

function claimed(row: TimerRow): ClaimedPromptTimer {
  const timer: PromptTimer =
    row.kind === 'reminder'
      ? { kind: 'reminder', callId: row.call_id, reminder: row.reminder }
      : { kind: 'deadline', callId: row.call_id, onDeadline: row.on_deadline ?? 'expire' };
  return { sessionId: row.session_id, timer };
}
