import { queryPrepared } from '@tollgate/persistence';
import type { EntityManager } from 'typeorm';
import type { SessionRecorder } from '../session/domain/session-recorder';
import { pendingPrompts, type SessionState } from '@tollgate/session-read-model';
import { cancelPromptTimers } from './prompt-timer.repository';

/** The pending-approvals and in-flight projections of the sessions' current states. */
export async function projectSessions(
  manager: EntityManager,
  recorders: readonly SessionRecorder[],
): Promise<void> {
  const ids = recorders.map((r) => r.current.sessionId);
  const pending = recorders.flatMap((r) =>
    pendingPrompts(r.current).map((p) => ({ sessionId: r.current.sessionId, ...p })),
  );
  await manager.query(`DELETE FROM pending_approvals WHERE session_id = ANY($1::text[])`, [ids]);
  if (pending.length > 0) {
    await manager.query(
      `INSERT INTO pending_approvals (session_id, call_id, requested_seq)
       SELECT * FROM unnest($1::text[], $2::text[], $3::int[])`,
      [
        pending.map((p) => p.sessionId),
        pending.map((p) => p.callId),
        pending.map((p) => p.requestedSeq),
      ],
    );
  }
  const inFlight = recorders.filter((r) => isInFlight(r.current)).map((r) => r.current.sessionId);
  await manager.query(
    `DELETE FROM sessions_in_flight WHERE session_id = ANY($1::text[]) AND NOT session_id = ANY($2::text[])`,
    [ids, inFlight],
  );
  if (inFlight.length > 0) {
    await manager.query(
      `INSERT INTO sessions_in_flight (session_id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`,
      [inFlight],
    );
  }
}

/**
 * The projections, touched only where the state changed since the last commit: a turn that
 * neither parks nor settles costs no projection write.
 */
export async function projectChanges(
  manager: EntityManager,
  before: SessionState,
  after: SessionState,
): Promise<void> {
  const key = (s: SessionState) =>
    pendingPrompts(s)
      .map((p) => `${p.callId}@${p.requestedSeq}`)
      .join(' ');
  if (key(before) !== key(after)) {
    const pending = pendingPrompts(after);
    await manager.query(`DELETE FROM pending_approvals WHERE session_id = $1`, [after.sessionId]);
    // S22: a prompt no longer pending takes its reminders and deadline with it.
    const still = pending.map((p) => p.callId);
    if (pendingPrompts(before).some((p) => !still.includes(p.callId))) {
      await cancelPromptTimers(manager, after.sessionId, still);
    }
    if (pending.length > 0) {
      await manager.query(
        `INSERT INTO pending_approvals (session_id, call_id, requested_seq)
         SELECT $1, * FROM unnest($2::text[], $3::int[])`,
        [after.sessionId, pending.map((p) => p.callId), pending.map((p) => p.requestedSeq)],
      );
    }
  }
  if (isInFlight(after) && !isInFlight(before)) {
    // Prepared: a turn starts and ends with these (queryPrepared).
    await queryPrepared(
      manager,
      'tollgate_in_flight_add',
      `INSERT INTO sessions_in_flight (session_id) VALUES ($1) ON CONFLICT DO NOTHING`,
      [after.sessionId],
    );
  } else if (!isInFlight(after) && isInFlight(before)) {
    await queryPrepared(
      manager,
      'tollgate_in_flight_remove',
      `DELETE FROM sessions_in_flight WHERE session_id = $1`,
      [after.sessionId],
    );
  }
}

function isInFlight(state: SessionState): boolean {
  return state.turn.phase === 'Running' || state.turn.phase === 'Redriving';
}
