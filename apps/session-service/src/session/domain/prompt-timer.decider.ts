import { decideApiDeadline, decideApiReminder } from './api-approval.decider';
import { ownEntry, pendingFor } from '@tollgate/session-read-model';
import {
  DEADLINE_DENIED_KEY,
  DEADLINE_EXPIRED_KEY,
  DEADLINE_REASON,
  deadlineResult,
  type PromptTimer,
} from './prompt-timer';
import type { SessionRecorder } from './session-recorder';
import { TOLLGATE } from './undeliverable.decider';

/**
 * S22: a prompt's timer came due. A prompt that is no longer pending (answered, superseded,
 * expired, or its session moved on) records nothing: a timer never outlives its prompt.
 * `commandId` is the timer's key (promptTimerKey), so the store decides it once.
 */
export function decidePromptTimer(
  recorder: SessionRecorder,
  timer: PromptTimer,
  commandId: string,
): void {
  // A2: an API approval's timer, in its agent session.
  if (ownEntry(recorder.current.apiApprovals, timer.callId)) {
    return timer.kind === 'reminder'
      ? decideApiReminder(recorder, timer.callId, timer.reminder, commandId)
      : decideApiDeadline(recorder, timer.callId, timer.onDeadline, commandId);
  }
  switch (timer.kind) {
    case 'reminder':
      return decideReminder(recorder, timer, commandId);
    case 'deadline':
      return decideDeadline(recorder, timer, commandId);
  }
}

/**
 * A thread reply addressed to the requester: the mention is Tollgate's (`TextOutput.mention`),
 * rendered by each binding as its platform's real mention; the text names only the tool. An
 * automation prompt has no person behind it (any member may answer), so nobody is mentioned.
 */
export function decideReminder(
  recorder: SessionRecorder,
  timer: Extract<PromptTimer, { kind: 'reminder' }>,
  commandId: string,
): void {
  const call = pendingCall(recorder, timer.callId);
  if (!call) return;
  const { request } = call;
  recorder.record(
    { type: 'ToolApprovalReminded', commandId, callId: timer.callId, reminder: timer.reminder },
    [
      {
        type: 'TextOutput',
        role: 'notice',
        text: `Reminder: the request to run ${request.toolName} is still waiting for an answer.`,
        ...(request.principal === 'user' ? { mention: request.requester } : {}),
      },
    ],
  );
}

/**
 * The deadline passed with nobody answering: the prompt ends as `Update{Expired}` ("deadline
 * passed") and the call is settled by Tollgate as not approved, so the batch goes on. With
 * `onDeadline: expire` the model reads `expired (deadline passed)` (nobody answered; it may
 * ask again); with `deny` it reads `denied (deadline passed)` (take it as a no).
 */
export function decideDeadline(
  recorder: SessionRecorder,
  timer: Extract<PromptTimer, { kind: 'deadline' }>,
  commandId: string,
): void {
  if (!pendingCall(recorder, timer.callId)) return;
  const optionKey = timer.onDeadline === 'deny' ? DEADLINE_DENIED_KEY : DEADLINE_EXPIRED_KEY;
  recorder.record(
    {
      type: 'ToolApprovalResolved',
      commandId,
      callId: timer.callId,
      optionKey,
      label: deadlineResult(optionKey) ?? DEADLINE_REASON,
      approved: false,
      resolvedBy: TOLLGATE,
    },
    [
      {
        type: 'ToolInteractionUpdate',
        callId: timer.callId,
        status: 'Expired',
        reason: DEADLINE_REASON,
      },
    ],
  );
}

function pendingCall(recorder: SessionRecorder, callId: string) {
  const state = recorder.current;
  if (state.version === 0 || !pendingFor(state.turn, callId)) return undefined;
  return ownEntry(state.requested, callId);
}
