import { ownEntry } from '@tollgate/session-read-model';
import type { OutputDraft, SessionRecorder } from './session-recorder';
import { RESULT_UNDELIVERABLE, UNDELIVERABLE_OPTION_KEY } from './undeliverable-call';
import { deadlineResult } from './prompt-timer';
import { boundedText, RESULT_DENIED } from './turn-records';

/** A call whose prompt could never be shown reads so in the reply, not as a denial. */
export function deniedResult(optionKey: string | undefined): string {
  if (optionKey === UNDELIVERABLE_OPTION_KEY) return RESULT_UNDELIVERABLE;
  return deadlineResult(optionKey) ?? RESULT_DENIED;
}

/**
 * S5: the batch cannot be redriven (context gone, tool gone). Nothing runs; every call gets a
 * synthetic result, every prompt of the batch is expired, and the chat is told.
 */
export function expireBatch(recorder: SessionRecorder, why: string): void {
  const state = recorder.current;
  const turn = state.turn;
  const approvalBatch = 'batch' in turn ? turn.batch : undefined;
  const batchId = state.batch?.batchId ?? approvalBatch?.batchId ?? 'unknown';
  const calls = state.batch?.toolCalls ?? [];
  const results = calls
    .filter((call) => !ownEntry(state.batch?.results, call.callId))
    .map((call) => ({ callId: call.callId, result: `not run: expired (${why})` }));
  recorder.record({ type: 'ToolBatchAbandoned', batchId, reason: 'expired', results }, [
    ...(approvalBatch?.gated ?? []).map((g): OutputDraft => ({
      type: 'ToolInteractionUpdate',
      callId: g.callId,
      status: 'Expired',
      reason: `expired: ${why}`,
    })),
    {
      type: 'TextOutput',
      role: 'notice',
      text: boundedText(`This request expired because ${why}; nothing was run.`),
    },
  ]);
}

/**
 * S9: the process died while a tool ran. A started call with no result may or may not have
 * done its work, so it is never run again: the batch is abandoned as interrupted, history is
 * healed with synthetic results, and the chat is told the action may not have completed.
 */
export function interruptBatch(recorder: SessionRecorder): void {
  const state = recorder.current;
  const batch = state.batch;
  const calls = batch?.toolCalls ?? [];
  const interrupted = calls.filter(
    (call) => batch?.started.includes(call.callId) && !ownEntry(batch.results, call.callId),
  );
  const results = calls
    .filter((call) => !ownEntry(batch?.results, call.callId))
    .map((call) => ({
      callId: call.callId,
      result: interrupted.includes(call)
        ? 'interrupted: the action may not have completed'
        : 'not run: interrupted by a restart',
    }));
  const names = interrupted.map((c) => c.toolName).join(', ') || 'the action';
  recorder.record(
    {
      type: 'ToolBatchAbandoned',
      batchId: batch?.batchId ?? 'unknown',
      reason: 'interrupted',
      results,
    },
    [
      {
        type: 'TextOutput',
        role: 'notice',
        text: boundedText(
          `The service restarted while ${names} ran; the action may not have completed. It was not run again.`,
        ),
      },
    ],
  );
}

/**
 * A decision failed after a checkpoint committed (its last events could not be saved), so the
 * journal holds a turn still Running or Redriving that nothing will finish: no redelivery
 * runs it (the command ledger already holds the id) and every later message would be an
 * illegal transition. Ends it as an interrupted batch would: a started call may have done its
 * work and is never run again, the rest are not run, and the chat is told. False when the
 * turn is not in flight.
 */
export function failTurnInFlight(recorder: SessionRecorder): boolean {
  const { turn, batch } = recorder.current;
  if (turn.phase !== 'Running' && turn.phase !== 'Redriving') return false;
  const started = (batch?.toolCalls ?? []).filter(
    (call) => batch?.started.includes(call.callId) && !ownEntry(batch.results, call.callId),
  );
  const names = started.map((c) => c.toolName).join(', ');
  const notice: OutputDraft = {
    type: 'TextOutput',
    role: 'notice',
    text: boundedText(
      names
        ? `The turn failed: its result could not be saved, and ${names} may have completed. Nothing else was run.`
        : 'The turn failed: its result could not be saved. Nothing else was run.',
    ),
  };
  if (!batch) {
    recorder.record({ type: 'TurnFailed', reason: 'the decision could not be saved' }, [notice]);
    return true;
  }
  const results = batch.toolCalls
    .filter((call) => !ownEntry(batch.results, call.callId))
    .map((call) => ({
      callId: call.callId,
      result: started.includes(call)
        ? 'interrupted: the action may not have completed'
        : 'not run: the turn failed',
    }));
  recorder.record(
    { type: 'ToolBatchAbandoned', batchId: batch.batchId, reason: 'interrupted', results },
    [notice],
  );
  return true;
}
