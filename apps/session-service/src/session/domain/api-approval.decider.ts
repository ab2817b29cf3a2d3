import {
  type JsonObject,
  type ApprovalCancel,
  type ApprovalDecided,
  type ApprovalDecision,
  approvalDecidedId,
  type ApprovalRequest,
  type ApprovalStatus,
  type Conversation,
  parseDuration,
  PROTOCOL_VERSION,
  type RejectionReason,
  standardOptions,
  TOLLGATE_DECIDER_ID,
  type ToolInteractionResponse,
  type ToolInteractionUndeliverable,
  WITHDRAWN_BY_AGENT,
} from '@tollgate/protocol';
import { decideEdit, editableArguments, type EditDecision } from './argument-edit.decider';
import { PROMPT_TEXT_BUDGET, renderPromptText } from '../../prompt/prompt-text.renderer';
import { DEADLINE_REASON, promptTimersAt } from './prompt-timer';
import type { SessionDeps } from './session-deps';
import type { OutputDraft, SessionRecorder } from './session-recorder';
import {
  hasOwnEntry,
  holdsSessionGrant,
  ownEntry,
  type PendingApiApproval,
  pendingApiApprovals,
  type SessionState,
} from '@tollgate/session-read-model';
import { expiredUpdate, refuse, refuseEdit, rejection, type RejectionNotices } from './rejection';
import { answerApiTally, apiQuorum, quorumOptions } from './api-quorum';

/**
 * A2: the approval API's approvals, decided in their agent session (docs/protocol.md,
 * 2026-12-01 (b)). An agent session has no turn: it never calls the model and never runs a
 * tool (the agent does, after the decision). Each approval stands alone, many may wait at once,
 * and each ends in exactly one `ApiApprovalDecided` whose `ApprovalDecided` goes out through
 * the outbox in the same transaction.
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

export async function decideApprovalRequest(
  recorder: SessionRecorder,
  command: ApprovalRequest,
  deps: SessionDeps,
): Promise<void> {
  if (recorder.current.version === 0) {
    recorder.record({
      type: 'SessionStarted',
      conversation: command.conversation,
      apiClientId: command.clientId,
    });
  }
  const state = recorder.current;
  // The session id is derived from the client, so another client can only be a hash collision.
  if (state.apiClientId !== command.clientId) {
    throw new Error(`session ${state.sessionId} is not an agent session of ${command.clientId}`);
  }
  // The ledger drops a repeated command; an approval id seen before changes nothing either.
  if (
    ownEntry(state.apiApprovals, command.approvalId) ||
    hasOwnEntry(state.settledCalls, command.approvalId)
  )
    return;
  const quorum = apiQuorum(command);
  const options = standardOptions(quorum ? quorumOptions(command.options) : command.options);
  const asked = {
    type: 'ApiApprovalRequested' as const,
    commandId: command.id,
    approvalId: command.approvalId,
    clientId: command.clientId,
    clientName: command.clientName,
    conversation: command.conversation,
    tool: command.tool,
    arguments: command.arguments,
    argumentsHash: command.argumentsHash,
    ...(command.summary === undefined ? {} : { summary: command.summary }),
    caller: command.caller,
    ...(command.onBehalfOf === undefined ? {} : { onBehalfOf: command.onBehalfOf }),
    approvers: command.approvers,
    options,
  };
  // G1: no one approver's grant stands in for a quorum or a separate approver.
  const granted = quorum ? undefined : await grantFor(recorder, command, deps);
  if (granted) {
    recorder.record(asked);
    decide(recorder, approvalOf(command), command.id, 'approved', granted, []);
    return;
  }
  // G2: a policy naming the tool under apiTools may let one approver narrow its arguments
  // (never a quorum's).
  const editable = quorum
    ? undefined
    : editableArguments(deps.policy.apiEntryFor(command.tool)?.editable, command.arguments);
  const seq = recorder.nextSeq;
  const request = recorder.output(
    seq,
    0,
    {
      type: 'ToolInteractionRequest',
      callId: command.approvalId,
      batchId: command.approvalId,
      toolName: command.tool,
      displayText: renderPromptText({
        tool: command.tool,
        arguments: command.arguments,
        argumentsHash: command.argumentsHash,
        ...(command.summary === undefined ? {} : { summary: command.summary }),
        agent: {
          name: `${command.caller.name} (${command.clientName})`,
          session: command.caller.session,
          ...(command.onBehalfOf === undefined ? {} : { onBehalfOf: command.onBehalfOf }),
        },
        approvers: command.approvers,
        maxChars: PROMPT_TEXT_BUDGET[command.conversation.platform],
      }),
      requester: command.approvers[0],
      approvers: command.approvers,
      principal: 'user',
      options,
      ...(quorum ? { quorum } : {}),
      ...(editable ? { editable } : {}),
    },
    command.conversation,
  );
  if (request.type !== 'ToolInteractionRequest') throw new Error('unreachable');
  const timers = promptTimersAt(timerPolicy(command, deps), request.occurredAt);
  recorder.record({ ...asked, request, ...(timers ? { timers } : {}) }, [request], {
    conversation: command.conversation,
  });
}

/** A pending approval loses its buttons with "Withdrawn by the agent"; a decided one stays. */
export function decideApprovalCancel(recorder: SessionRecorder, command: ApprovalCancel): void {
  const state = recorder.current;
  const approval = ownEntry(state.apiApprovals, command.approvalId);
  if (!approval || state.apiClientId !== command.clientId) return;
  decide(recorder, approvalFromState(state, approval), command.id, 'cancelled', null, [
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
          decide(recorder, ref, command.id, status, decision, drafts),
      },
    );
    return;
  }
  if (!(request.approvers ?? [request.requester]).some((p) => p.id === command.sender.id)) {
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
  decide(
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
  );
}

/** The prompt could never be shown: the approval expires rather than wait for nobody. */
export function decideApiUndeliverable(
  recorder: SessionRecorder,
  command: ToolInteractionUndeliverable,
): void {
  const state = recorder.current;
  const approval = ownEntry(state.apiApprovals, command.callId);
  if (!approval) return;
  decide(recorder, approvalFromState(state, approval), command.id, 'expired', null, [
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
  decide(
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
        mention: request.requester,
      },
    ],
    { conversation: request.conversation },
  );
}

/** After a restart every pending approval's prompt is refreshed "still valid". */
export function apiRefreshes(state: SessionState): {
  callIds: string[];
  drafts: OutputDraft[];
  conversations: Conversation[];
} {
  const pending = pendingApiApprovals(state);
  return {
    callIds: pending.map(([callId]) => callId),
    drafts: pending.map(([callId, approval]) => ({
      type: 'ToolInteractionUpdate',
      callId,
      status: 'RefreshedAfterRestart',
      reason: 'the service restarted; this request is still valid',
      request: approval.request,
    })),
    conversations: pending.map(([, approval]) => approval.request.conversation),
  };
}

interface ApprovalRef {
  readonly approvalId: string;
  readonly clientId: string;
  readonly conversation: Conversation;
  readonly tool: string;
}

function approvalOf(command: ApprovalRequest): ApprovalRef {
  return {
    approvalId: command.approvalId,
    clientId: command.clientId,
    conversation: command.conversation,
    tool: command.tool,
  };
}

function approvalFromState(state: SessionState, approval: PendingApiApproval): ApprovalRef {
  const { request } = approval;
  if (state.apiClientId === undefined) throw new Error(`${state.sessionId} is no agent session`);
  return {
    approvalId: request.callId,
    clientId: state.apiClientId,
    conversation: request.conversation,
    tool: request.toolName,
  };
}

/** Journals the one decision and hands its `ApprovalDecided` to the outbox with the outputs. */
function decide(
  recorder: SessionRecorder,
  approval: ApprovalRef,
  commandId: string,
  status: ApprovalStatus,
  decision: ApprovalDecision | null,
  drafts: readonly OutputDraft[],
): void {
  const decided: ApprovalDecided = {
    type: 'ApprovalDecided',
    v: PROTOCOL_VERSION,
    id: approvalDecidedId(approval.approvalId),
    occurredAt: recorder.clock,
    sessionId: recorder.current.sessionId,
    approvalId: approval.approvalId,
    clientId: approval.clientId,
    status,
    decision,
    decidedAt: recorder.clock,
  };
  recorder.record(
    {
      type: 'ApiApprovalDecided',
      commandId,
      approvalId: approval.approvalId,
      clientId: approval.clientId,
      conversation: approval.conversation,
      tool: approval.tool,
      status,
      decision,
    },
    drafts,
    { conversation: approval.conversation, decisions: [decided] },
  );
}

/**
 * A standing grant of an approver decides at once: "Allow in this chat" given in this agent
 * session for this tool, or "Always allow" given for this client and tool. The first approver
 * holding one is named as the one who decided. The grants are read in the decision's own
 * transaction: a second pooled connection per decision could deadlock a busy pool (D2).
 */
async function grantFor(
  recorder: SessionRecorder,
  command: ApprovalRequest,
  deps: SessionDeps,
): Promise<ApprovalDecision | undefined> {
  const state = recorder.current;
  const offered = new Set(command.options);
  const by = (id: string, displayName?: string) => ({
    platform: command.conversation.platform,
    id,
    ...(displayName === undefined ? {} : { displayName }),
  });
  if (offered.has('approve_session')) {
    const holder = command.approvers.find((p) => holdsSessionGrant(state, p.id, command.tool));
    if (holder) {
      return {
        option: 'approve_session',
        by: by(holder.id, holder.displayName),
        via: 'grant',
        reason: null,
      };
    }
  }
  if (offered.has('approve_always')) {
    for (const approver of command.approvers) {
      const held = await recorder.readThrough((connection) =>
        deps.grants.isAlwaysAllowed(
          command.conversation,
          approver.id,
          command.tool,
          command.clientId,
          connection,
        ),
      );
      if (held) {
        return {
          option: 'approve_always',
          by: by(approver.id, approver.displayName),
          via: 'grant',
          reason: null,
        };
      }
    }
  }
  return undefined;
}

/** The request's deadline; reminders from the tool policy when its apiTools name the tool. */
function timerPolicy(command: ApprovalRequest, deps: SessionDeps) {
  const remindMs = deps.policy.apiEntryFor(command.tool)?.remindMs ?? [];
  const deadline = command.deadline === undefined ? undefined : parseDuration(command.deadline);
  const deadlineMs = deadline?.ok ? deadline.ms : undefined;
  if (deadlineMs === undefined && remindMs.length === 0) return undefined;
  return {
    remindMs: deadlineMs === undefined ? remindMs : remindMs.filter((ms) => ms < deadlineMs),
    onDeadline: command.onDeadline ?? 'expire',
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
  };
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
