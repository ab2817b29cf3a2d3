import {
  type JsonObject,
  type ApprovalCancel,
  type RejectionReason,
  TOLLGATE_DECIDER_ID,
  type ToolInteractionRequest,
  type ToolInteractionResponse,
  type ToolInteractionUndeliverable,
  WITHDRAWN_BY_AGENT,
} from '@tollgate/protocol';
import { decideEdit, type EditDecision } from './argument-edit.decider';
import { DEADLINE_REASON } from './prompt-timer';
import type { OutputDraft, SessionRecorder } from './session-recorder';
import { ownEntry } from '@tollgate/session-read-model';
import { expiredUpdate, refuse, refuseEdit, rejection, type RejectionNotices } from './rejection';
import { answerApiTally } from './api-quorum';
import { approvalFromState, decideApproval } from './api-approval-outcome';

/**
 * A2: the answers to the approval API's approvals, decided in their agent session
 * (docs/protocol.md, 2026-12-01 (b)): a click or a typed answer, the agent's cancel, an
 * undeliverable prompt, a deadline, a reminder. The request itself is
 * `api-approval-request.decider.ts`; how an approval ends, `api-approval-outcome.ts`.
 */

export const WITHDRAWN = WITHDRAWN_BY_AGENT;

const NOTICES: RejectionNotices = {
  wrong_requester: 'Only the approvers named on this request can answer it.',
  option_unavailable: 'That option is not offered for this request.',
  prompt_expired: 'This request is no longer valid; nothing was decided.',
  persist_failed: 'Your answer could not be saved; please try again.',
  already_answered: 'Your answer to this request is already counted; nothing changed.',
  own_call: 'You asked for this, so someone else must approve it; you may still deny it.',
  edit_refused: 'That edit is not allowed; nothing was decided.',
};

/** An API prompt offers no edit: its arguments are the agent's, run by the agent. */
const NOT_EDITABLE = {
  code: 'not_offered',
  text: 'This request cannot be edited; nothing was decided.',
};

/** A pending approval loses its buttons with "Withdrawn by the agent"; a decided one stays. */
export function decideApprovalCancel(recorder: SessionRecorder, command: ApprovalCancel): void {
  const state = recorder.current;
  const approval = ownEntry(state.apiApprovals, command.approvalId);
  if (!approval || state.apiClientId !== command.clientId) return;
  decideApproval(recorder, approvalFromState(state, approval), command.id, 'cancelled', null, [
    {
      type: 'ToolInteractionUpdate',
      callId: command.approvalId,
      status: 'Abandoned',
      reason: WITHDRAWN,
    },
  ]);
}

/**
 * A click or a typed answer. Only the approvers decide; the first valid answer wins and every
 * later one learns the request is no longer valid (docs/protocol.md, 2026-12-01 (b) §6).
 */
export function decideApiResponse(
  recorder: SessionRecorder,
  command: ToolInteractionResponse,
): void {
  const state = recorder.current;
  const approval = ownEntry(state.apiApprovals, command.callId);
  if (!approval) {
    const settled = ownEntry(state.settledCalls, command.callId);
    if (state.version === 0 || settled === undefined) {
      recorder.recordUnjournaled(
        command.id,
        command.conversation,
        rejection(command, 'prompt_expired', NOTICES),
      );
      return;
    }
    refuseApi(recorder, command, 'prompt_expired', settled ? [] : [expiredUpdate(command.callId)]);
    return;
  }
  const { request } = approval;
  const { quorum } = request;
  if (quorum !== undefined) {
    const option = request.options.find((o) => o.key === command.optionKey);
    if (!option) {
      refuseApi(recorder, command, 'option_unavailable');
      return;
    }
    if (command.edits !== undefined) {
      refuseEdit(recorder, command, NOT_EDITABLE, { conversation: [command.conversation] });
      return;
    }
    const ref = approvalFromState(state, approval);
    answerApiTally(
      recorder,
      command,
      option,
      { ...request, quorum },
      {
        refuse: (reason) => refuseApi(recorder, command, reason),
        decide: (status, decision, drafts) =>
          decideApproval(recorder, ref, command.id, status, decision, drafts),
      },
    );
    return;
  }
  if (!mayAnswer(request, command)) {
    refuseApi(recorder, command, 'wrong_requester');
    return;
  }
  const option = request.options.find((o) => o.key === command.optionKey);
  if (!option) {
    refuseApi(recorder, command, 'option_unavailable');
    return;
  }
  let edited: Extract<EditDecision, { kind: 'accepted' }> | undefined;
  if (command.edits !== undefined) {
    const decided = decideEdit(
      { editable: request.editable, arguments: (approval.arguments ?? {}) as JsonObject },
      command.edits,
    );
    if (decided.kind === 'refused') {
      refuseEdit(recorder, command, decided, { conversation: [command.conversation] });
      return;
    }
    edited = decided;
  }
  const { sender } = command;
  decideApproval(
    recorder,
    approvalFromState(state, approval),
    command.id,
    option.key === 'deny' ? 'denied' : 'approved',
    {
      option: option.key,
      by: {
        platform: request.conversation.platform,
        id: sender.id,
        ...(sender.displayName === undefined ? {} : { displayName: sender.displayName }),
      },
      via: command.via ?? 'click',
      reason: null,
      ...(edited === undefined
        ? {}
        : { finalArguments: edited.arguments, finalArgumentsHash: edited.argumentsHash }),
    },
    [
      {
        type: 'ToolInteractionResolved',
        callId: command.callId,
        optionKey: option.key,
        label: option.label,
        resolvedBy: sender,
        ...(edited === undefined
          ? {}
          : { edit: { changes: [...edited.changes], argumentsHash: edited.argumentsHash } }),
      },
    ],
    // G3: an "Always allow" gives what its request offered, as the approver saw it.
    option.key === 'approve_always' && approval.grantOffer
      ? { grantOffer: approval.grantOffer }
      : {},
  );
}

/**
 * Who may give the one answer (no quorum): a named approver, or a member of a named group as
 * the posting binding found them (`memberOf`, G1); the requester only when neither is named.
 */
function mayAnswer(request: ToolInteractionRequest, command: ToolInteractionResponse): boolean {
  const { approvers, approverGroups } = request;
  if (approvers === undefined && approverGroups === undefined)
    return request.requester.id === command.sender.id;
  if (approvers?.some((p) => p.id === command.sender.id)) return true;
  const groups = (approverGroups ?? []).map((g) => g.id);
  return (command.memberOf ?? []).some((id) => groups.includes(id));
}

/** The prompt could never be shown: the approval expires rather than wait for nobody. */
export function decideApiUndeliverable(
  recorder: SessionRecorder,
  command: ToolInteractionUndeliverable,
): void {
  const state = recorder.current;
  const approval = ownEntry(state.apiApprovals, command.callId);
  if (!approval) return;
  decideApproval(recorder, approvalFromState(state, approval), command.id, 'expired', null, [
    {
      type: 'ToolInteractionUpdate',
      callId: command.callId,
      status: 'Expired',
      reason: `undeliverable: ${command.reason}`,
    },
  ]);
}

/** Its deadline passed unanswered: expired, or denied with `onDeadline: 'deny'`. */
export function decideApiDeadline(
  recorder: SessionRecorder,
  approvalId: string,
  onDeadline: 'deny' | 'expire',
  commandId: string,
): void {
  const state = recorder.current;
  const approval = ownEntry(state.apiApprovals, approvalId);
  if (!approval) return;
  decideApproval(
    recorder,
    approvalFromState(state, approval),
    commandId,
    onDeadline === 'deny' ? 'denied' : 'expired',
    {
      option: 'deny',
      by: { platform: approval.request.conversation.platform, id: TOLLGATE_DECIDER_ID },
      via: 'deadline',
      reason: DEADLINE_REASON,
    },
    [
      {
        type: 'ToolInteractionUpdate',
        callId: approvalId,
        status: 'Expired',
        reason: DEADLINE_REASON,
      },
    ],
  );
}

/** A reminder addresses the first approver, in the approval's own conversation. */
export function decideApiReminder(
  recorder: SessionRecorder,
  approvalId: string,
  reminder: number,
  commandId: string,
): void {
  const approval = ownEntry(recorder.current.apiApprovals, approvalId);
  if (!approval) return;
  const { request } = approval;
  recorder.record(
    { type: 'ToolApprovalReminded', commandId, callId: approvalId, reminder },
    [
      {
        type: 'TextOutput',
        role: 'notice',
        text: `Reminder: the request to run ${request.toolName} is still waiting for an answer.`,
        // A request naming only groups has no one person to address.
        ...(request.approvers?.[0] ? { mention: request.approvers[0] } : {}),
      },
    ],
    { conversation: request.conversation },
  );
}

function refuseApi(
  recorder: SessionRecorder,
  command: ToolInteractionResponse,
  reason: RejectionReason,
  extra: readonly OutputDraft[] = [],
): void {
  const approval = ownEntry(recorder.current.apiApprovals, command.callId);
  // The notice goes where the click came from; the expiry where the prompt is.
  refuse(recorder, command, reason, NOTICES, extra, {
    conversation: [
      command.conversation,
      ...extra.map(() => approval?.request.conversation ?? command.conversation),
    ],
  });
}
