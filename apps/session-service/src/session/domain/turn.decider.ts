import { ownEntry } from '@tollgate/session-read-model';
import type { SessionRecorder } from './session-recorder';
import { callModel, nextModelRound } from './model-round';
import { DECIDED, type TurnConfig, type TurnEffect, type TurnInput } from './turn-effects';
import { decideBatchStep, startBatch } from './batch.decider';
import { redriveContextRead } from './redrive.decider';
import { expireBatch, interruptBatch } from './turn-endings';
import { boundedText } from './turn-records';

export type { TurnEffect, TurnInput } from './turn-effects';

/**
 * The turn as `decide(state, input) → events + effect` (D1): what a turn in flight needs next,
 * after any decision (a message, an answer, a deadline, a sub-agent's result, an undeliverable
 * prompt, a restart) or after the shell ran the last effect. Events are recorded on the
 * recorder; the effect (or none: the turn is over or parked) is returned for the shell to run.
 */
export function decideTurn(
  recorder: SessionRecorder,
  config: TurnConfig,
  input: TurnInput = DECIDED,
): TurnEffect | undefined {
  switch (input.type) {
    case 'Decided':
      return decideInFlight(recorder, config);
    case 'HistoryRead':
      if (input.effect.purpose === 'redrive') {
        return redriveContextRead(recorder, config, input.messages);
      }
      return callModel(recorder, config, input.effect.round, input.messages, undefined);
    case 'HistoryUnrestorable':
      if (input.effect.purpose === 'redrive') {
        expireBatch(recorder, 'its context could not be restored');
        return undefined;
      }
      return failTurn(recorder, `its history could not be restored (${input.reason})`);
    case 'ModelFailed':
      // A model that errs or times out fails the turn; the user is told, nothing is left open.
      return failTurn(recorder, `the model did not answer: ${input.reason}`);
    case 'ModelReplied': {
      const { reply } = input;
      if (reply.toolCalls.length > 0) {
        return startBatch(recorder, config, input.effect.round, reply.content, reply.toolCalls);
      }
      // A sub-agent's reply is its `delegate` result, which the parent's model answers with.
      recorder.record(
        { type: 'TurnCompleted', reply: reply.content },
        recorder.current.parent
          ? []
          : [{ type: 'TextOutput', text: boundedText(reply.content), role: 'assistant' }],
      );
      return undefined;
    }
    case 'GrantRead':
    case 'GrantUseTaken':
    case 'ToolRan':
    case 'ToolFailed':
      return decideBatchStep(recorder, config, input);
  }
}

/**
 * The one rule for a turn in flight after a decision: Redriving redrives (after committing
 * the answer, `approval-resolved`, so the approver sees it at once), Running asks the model,
 * and a call that started but never recorded a result (the process died while it ran) is never
 * run again — the batch is abandoned as interrupted (S9) and nothing is asked for.
 */
function decideInFlight(recorder: SessionRecorder, config: TurnConfig): TurnEffect | undefined {
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
    if (!batch) {
      expireBatch(recorder, 'its context could not be restored');
      return undefined;
    }
    return {
      type: 'ReadHistory',
      commitFirst: 'approval-resolved',
      purpose: 'redrive',
      throughSeq: batch.seq,
      round: 0,
    };
  }
  // Waiting on the model, nothing half-run: the call is simply made (again, after a crash).
  if (turn.phase === 'Running' && !unfinished) return nextModelRound(recorder, config, 0);
  interruptBatch(recorder);
  return undefined;
}

function failTurn(recorder: SessionRecorder, reason: string): undefined {
  recorder.record({ type: 'TurnFailed', reason }, [
    { type: 'TextOutput', text: boundedText(`The turn failed: ${reason}`), role: 'notice' },
  ]);
  return undefined;
}
