import {
  type JoinSession,
  type JsonObject,
  type Person,
  principalOf,
  type ToolInteractionRequest,
  type ToolInteractionResponse,
  type UserMessage,
} from '@tollgate/protocol';
import {
  type ApprovalEdit,
  isAwaitingSubAgents,
  isParked,
  isRecovered,
  ownEntry,
  pendingCalls,
  pendingFor,
  type SessionState,
} from '@tollgate/session-read-model';
import { apiRefreshes } from './api-approval-outcome';
import { abandonSubAgents } from './sub-agent.decider';
import type { OutputDraft, SessionRecorder } from './session-recorder';
import { answerVia } from './answer-via';
import { failTurnInFlight } from './turn-endings';
import { expiredUpdate, refuse, refuseEdit, rejection, type RejectionNotices } from './rejection';
import { decideEdit } from './argument-edit.decider';
import { answerWithTally } from './quorum-answer';

/**
 * The session's decisions, one per command (docs/architecture.md §3.3–3.4). Each reads the state
 * the journal rebuilt and records events with their outputs; the caller commits them.
 */

const SUPERSEDED = 'superseded by a newer message';

export function decideUserMessage(recorder: SessionRecorder, command: UserMessage): void {
  startIfNew(recorder, command.conversation);
  // Only a decision that failed after a checkpoint (and whose settling failed too) leaves a
  // turn in flight under the session lock: end it rather than refuse this message for ever.
  failTurnInFlight(recorder);
  const turn = recorder.current.turn;
  if (isParked(turn) || isAwaitingSubAgents(turn)) supersede(recorder);
  recorder.record({
    type: 'UserMessageReceived',
    commandId: command.id,
    sender: command.sender,
    text: command.text,
    principal: principalOf(command),
  });
}

export function decideResponse(recorder: SessionRecorder, command: ToolInteractionResponse): void {
  const state = recorder.current;
  const call = ownEntry(state.requested, command.callId);
  const settled = ownEntry(state.settledCalls, command.callId);
  if (state.version === 0 || (!call && settled === undefined)) {
    // Nothing journaled ever asked this: answer without journaling (seq 0).
    recorder.recordUnjournaled(
      command.id,
      command.conversation,
      rejection(command, 'prompt_expired', NOTICES),
    );
    return;
  }
  const pending = pendingFor(state.turn, command.callId);
  if (!pending) {
    // The losing click of a race sees only the notice; a superseded prompt also loses any
    // buttons a binding may still show.
    const answered = call ? call.resolution !== undefined : settled === true;
    refuse(
      recorder,
      command,
      'prompt_expired',
      NOTICES,
      answered ? [] : [expiredUpdate(command.callId)],
    );
    return;
  }
  if (!call) throw new Error(`call ${command.callId} is pending but was never requested`);
  const request = call.request;
  const { quorum } = request;
  if (quorum !== undefined) {
    // G1: the tally says who may answer and when the answers decide.
    const option = request.options.find((o) => o.key === command.optionKey);
    if (!option) {
      refuse(recorder, command, 'option_unavailable', NOTICES);
      return;
    }
    if (command.edits !== undefined) {
      // Every approver of a quorum approves the same arguments: no edit is offered.
      refuseEdit(recorder, command, QUORUM_NOT_EDITABLE);
      return;
    }
    answerWithTally(recorder, command, option, { ...request, quorum }, TALLY_NOTICES);
    return;
  }
  if (!mayAnswer(request, command.sender)) {
    refuse(recorder, command, 'wrong_requester', NOTICES);
    return;
  }
  const option = request.options.find((o) => o.key === command.optionKey);
  if (!option) {
    refuse(recorder, command, 'option_unavailable', NOTICES);
    return;
  }
  let edit: ApprovalEdit | undefined;
  if (command.edits !== undefined) {
    const decided = decideEdit(
      { editable: request.editable, arguments: callArguments(state, command.callId) ?? {} },
      command.edits,
    );
    if (decided.kind === 'refused') {
      refuseEdit(recorder, command, decided);
      return;
    }
    edit = {
      arguments: JSON.stringify(decided.arguments),
      argumentsHash: decided.argumentsHash,
      changes: decided.changes,
    };
  }
  recorder.record(
    {
      type: 'ToolApprovalResolved',
      commandId: command.id,
      callId: command.callId,
      optionKey: option.key,
      label: option.label,
      approved: option.key !== 'deny',
      resolvedBy: command.sender,
      ...answerVia(command),
      ...(edit === undefined ? {} : { edit }),
    },
    [
      {
        type: 'ToolInteractionResolved',
        callId: command.callId,
        optionKey: option.key,
        label: option.label,
        resolvedBy: command.sender,
        ...(edit === undefined
          ? {}
          : { edit: { changes: [...edit.changes], argumentsHash: edit.argumentsHash } }),
      },
    ],
  );
}

/** Re-announces a recovered session's prompts to a binding that asks (docs/protocol.md §4). */
export function decideJoin(recorder: SessionRecorder, _command: JoinSession): void {
  const state = recorder.current;
  if (!isRecovered(state.turn)) return;
  const pendingCallIds = pendingCalls(state.turn).map((p) => p.callId);
  recorder.record(
    { type: 'PendingApprovalsReannounced', pendingCallIds },
    refreshes(state, pendingCallIds),
  );
}

/**
 * A new process found this session parked: journal it and refresh every pending prompt. (A turn
 * in flight when the last one died is settled by the turn decider, S9.)
 */
export function decideRecovery(recorder: SessionRecorder): boolean {
  const state = recorder.current;
  if (state.apiClientId !== undefined) {
    // An agent session (A2) only ever waits on its API approvals.
    const { callIds, drafts, conversations } = apiRefreshes(state);
    if (callIds.length === 0) return false;
    recorder.record({ type: 'SessionRecovered', pendingCallIds: callIds }, drafts, {
      conversation: conversations,
    });
    return true;
  }
  // A turn left in flight is the shell's to drive on (decideTurn), not a refresh.
  if (!isParked(state.turn)) return false;
  const pendingCallIds = pendingCalls(state.turn).map((p) => p.callId);
  recorder.record({ type: 'SessionRecovered', pendingCallIds }, refreshes(state, pendingCallIds));
  return true;
}

function startIfNew(recorder: SessionRecorder, conversation: UserMessage['conversation']): void {
  if (recorder.current.version === 0) recorder.record({ type: 'SessionStarted', conversation });
}

/** Synthetic results first, so provider history never holds a call without a result. */
function supersede(recorder: SessionRecorder): void {
  const state = recorder.current;
  const batch = state.batch;
  if (!batch) throw new Error(`session ${state.sessionId} is parked without a batch`);
  const pending = pendingCalls(state.turn);
  // The whole tree goes: children are told in this transaction, before the batch forgets them.
  abandonSubAgents(recorder, SUPERSEDED);
  const results = batch.toolCalls
    .filter((call) => !ownEntry(batch.results, call.callId))
    .map((call) => ({ callId: call.callId, result: `not run: ${SUPERSEDED}` }));
  recorder.record(
    { type: 'ToolBatchAbandoned', batchId: batch.batchId, reason: 'superseded', results },
    pending.map((p): OutputDraft => ({
      type: 'ToolInteractionUpdate',
      callId: p.callId,
      status: 'Abandoned',
      reason: SUPERSEDED,
    })),
  );
}

function refreshes(state: SessionState, callIds: readonly string[]): OutputDraft[] {
  return callIds.map((callId) => ({
    type: 'ToolInteractionUpdate',
    callId,
    status: 'RefreshedAfterRestart',
    reason: 'the service restarted; this request is still valid',
    request: ownEntry(state.requested, callId)?.request,
  }));
}

const QUORUM_NOT_EDITABLE = {
  code: 'not_offered',
  text: 'A request several people approve cannot be edited; nothing was decided.',
};

const NOTICES: RejectionNotices = {
  wrong_requester: 'Only the person who asked can answer this request.',
  option_unavailable: 'That option is not offered for this request.',
  prompt_expired: 'This request is no longer valid; nothing was run.',
  persist_failed: 'Your answer could not be saved; please try again.',
  already_answered: 'Your answer to this request is already counted; nothing changed.',
  own_call: 'You asked for this, so someone else must approve it; you may still deny it.',
  edit_refused: 'That edit is not allowed; nothing was run.',
};

/**
 * A tallied prompt is answered by the approvers it names (people or platform groups), not by its
 * requester: telling someone outside them "only the person who asked" would send them to the
 * wrong person.
 */
const TALLY_NOTICES: RejectionNotices = {
  ...NOTICES,
  wrong_requester: 'Only the approvers this request names can answer it; nothing changed.',
};

/** The arguments a call of the current batch was asked with, when they are a JSON object. */
function callArguments(state: SessionState, callId: string): JsonObject | undefined {
  const call = state.batch?.toolCalls.find((c) => c.callId === callId);
  if (!call) return undefined;
  try {
    const value: unknown = JSON.parse(call.arguments);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as JsonObject)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Who may answer a prompt: its requester when a user asked, any member when an automation did
 * (docs/protocol.md §4). Any other principal fails closed: a kind of request added later is
 * answered by nobody until its rule is written here (X16).
 */
function mayAnswer(request: ToolInteractionRequest, sender: Person): boolean {
  // Read as the wire reads it: a request journaled before principals existed is a user's.
  const principal: string = principalOf(request);
  switch (principal) {
    case 'user':
      return sender.id === request.requester.id;
    case 'automation':
      return true;
    default:
      return false;
  }
}
