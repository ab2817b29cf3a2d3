import { ownEntry } from '@tollgate/session-read-model';
import type { SessionRecorder } from './session-recorder';
import { interruptBatch } from './turn-runner';

/**
 * What a turn needs from the shell once a decision has recorded its events. Each is I/O the
 * shell runs (domain code never waits on it), committing what was decided first:
 * - `CallModel`: the turn is Running with nothing half-run — ask the model (its history is
 *   read after the `model-calling` commit).
 * - `Redrive`: the batch's last answer came (or a restart found it answered) — commit
 *   (`approval-resolved`, so the approver sees the decision at once and no connection is held),
 *   then read the batch's context, run the approved calls and continue.
 */
export type TurnEffect =
  | { readonly type: 'CallModel' }
  | { readonly type: 'Redrive'; readonly commitFirst: 'approval-resolved' };

/**
 * The one rule for a turn in flight, after any decision (a message, an answer, a deadline, a
 * sub-agent's result, an undeliverable prompt, a restart): Redriving redrives, Running asks the
 * model, and a call that started but never recorded a result (the process died while it ran)
 * is never run again — the batch is abandoned as interrupted (S9) and nothing is asked for.
 */
export function decideTurn(recorder: SessionRecorder): TurnEffect | undefined {
  const { turn, batch } = recorder.current;
  if (turn.phase !== 'Running' && turn.phase !== 'Redriving') return undefined;
  const unfinished =
    batch?.toolCalls.some((call) => !ownEntry(batch.results, call.callId)) ?? false;
  const interrupted = batch?.toolCalls.some(
    (call) => batch.started.includes(call.callId) && !ownEntry(batch.results, call.callId),
  );
  // Approved and never started (run it now, once), or all run and the model's answer to
  // them outstanding.
  if (turn.phase === 'Redriving' && !interrupted) {
    return { type: 'Redrive', commitFirst: 'approval-resolved' };
  }
  // Waiting on the model, nothing half-run: the call is simply made (again, after a crash).
  if (turn.phase === 'Running' && !unfinished) return { type: 'CallModel' };
  interruptBatch(recorder);
  return undefined;
}
