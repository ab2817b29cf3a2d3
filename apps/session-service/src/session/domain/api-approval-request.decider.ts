import {
  type ApprovalDecision,
  type ApprovalRequest,
  grantOfferOf,
  type Conversation,
  parseDuration,
  type Person,
  standardOptions,
  TOLLGATE_DECIDER_ID,
} from '@tollgate/protocol';
import {
  type GrantUse,
  hasOwnEntry,
  holdsSessionGrant,
  ownEntry,
  type SessionState,
} from '@tollgate/session-read-model';
import type { ToolPolicy } from '../../tools/tool-policy';
import { journaledOffer } from '../../tools/grant-offer';
import type { ApiGrantCover } from './api-grant-cover';
import { PROMPT_TEXT_BUDGET, renderPromptText } from '../../prompt/prompt-text.renderer';
import { editableArguments } from './argument-edit.decider';
import { promptTimersAt } from './prompt-timer';
import type { SessionRecorder } from './session-recorder';
import { approvalOf, decideApproval } from './api-approval-outcome';
import { apiQuorum, quorumOptions } from './api-quorum';

/**
 * A2: an agent asks, through the approval API, whether it may run a tool. An agent session
 * has no turn: it never calls the model and never runs a tool (the agent does, after the
 * decision). Each approval stands alone and many may wait at once. A standing grant of an
 * approver decides at once; otherwise the approvers are prompted.
 */

/**
 * The `ReadApproverGrants` effect: whose "Always allow" (for this client and tool) the shell
 * must read before the request is decided, or nothing when no such grant could decide it (a
 * quorum, the option not offered, a session grant deciding already, a repeated approval).
 */
export interface ReadApproverGrants {
  readonly type: 'ReadApproverGrants';
  readonly conversation: Conversation;
  readonly tool: string;
  readonly clientId: string;
  readonly approverIds: readonly string[];
  /** G3: the instant a grant must still be in force at. */
  readonly now: string;
}

export function approverGrantsToRead(
  state: SessionState,
  command: ApprovalRequest,
  now: string,
): ReadApproverGrants | undefined {
  if (
    ownEntry(state.apiApprovals, command.approvalId) ||
    hasOwnEntry(state.settledCalls, command.approvalId) ||
    apiQuorum(command) ||
    !command.options.includes('approve_always') ||
    sessionGrantHolder(state, command)
  ) {
    return undefined;
  }
  return {
    type: 'ReadApproverGrants',
    conversation: command.conversation,
    tool: command.tool,
    clientId: command.clientId,
    approverIds: command.approvers.map((p) => p.id),
    now,
  };
}

/** `always`: the approver's "Always allow" the shell found covering it, its use taken. */
export function decideApprovalRequest(
  recorder: SessionRecorder,
  command: ApprovalRequest,
  policy: ToolPolicy,
  always: ApiGrantCover | undefined,
): void {
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
  const keys = quorum ? quorumOptions(command.options) : command.options;
  // G3: the request's own offer labels its "Always allow" and is journaled with it.
  const offer =
    command.always !== undefined && keys.includes('approve_always')
      ? grantOfferOf(command.always)
      : undefined;
  const options = standardOptions(keys).map((o) =>
    o.key === 'approve_always' && offer?.ok ? { ...o, label: offer.offer.label } : o,
  );
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
    ...(offer?.ok ? { grantOffer: journaledOffer(offer.offer) } : {}),
  };
  // G1: no one approver's grant stands in for a quorum or a separate approver.
  const granted = quorum ? undefined : grantFor(state, command, always);
  if (granted) {
    recorder.record(asked);
    decideApproval(recorder, approvalOf(command), command.id, 'approved', granted.decision, [], {
      ...(granted.use ? { grant: granted.use } : {}),
    });
    return;
  }
  // G2: a policy naming the tool under apiTools may let one approver narrow its arguments
  // (never a quorum's).
  const editable = quorum
    ? undefined
    : editableArguments(policy.apiEntryFor(command.tool)?.editable, command.arguments);
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
        ...(command.approverGroups ? { approverGroups: command.approverGroups } : {}),
        maxChars: PROMPT_TEXT_BUDGET[command.conversation.platform],
      }),
      requester: requesterOf(command),
      ...(command.approvers.length > 0 ? { approvers: command.approvers } : {}),
      ...(command.approverGroups ? { approverGroups: [...command.approverGroups] } : {}),
      principal: 'user',
      options,
      ...(quorum ? { quorum } : {}),
      ...(editable ? { editable } : {}),
    },
    command.conversation,
  );
  if (request.type !== 'ToolInteractionRequest') throw new Error('unreachable');
  const timers = promptTimersAt(timerPolicy(command, policy), request.occurredAt);
  recorder.record({ ...asked, request, ...(timers ? { timers } : {}) }, [request], {
    conversation: command.conversation,
  });
}

/**
 * A standing grant of an approver decides at once: "Allow in this chat" given in this agent
 * session for this tool, or "Always allow" given for this client and tool. The first approver
 * holding one is named as the one who decided.
 */
function grantFor(
  state: SessionState,
  command: ApprovalRequest,
  always: ApiGrantCover | undefined,
): { decision: ApprovalDecision; use?: GrantUse } | undefined {
  const by = (id: string, displayName?: string) => ({
    platform: command.conversation.platform,
    id,
    ...(displayName === undefined ? {} : { displayName }),
  });
  const holder = sessionGrantHolder(state, command);
  if (holder) {
    return {
      decision: {
        option: 'approve_session',
        by: by(holder.id, holder.displayName),
        via: 'grant',
        reason: null,
      },
    };
  }
  if (!command.options.includes('approve_always') || always === undefined) return undefined;
  const approver = command.approvers.find((p) => p.id === always.approverId);
  if (!approver) return undefined;
  return {
    decision: {
      option: 'approve_always',
      by: by(approver.id, approver.displayName),
      via: 'grant',
      reason: null,
    },
    use: always.use,
  };
}

function sessionGrantHolder(state: SessionState, command: ApprovalRequest) {
  if (!command.options.includes('approve_session')) return undefined;
  return command.approvers.find((p) => holdsSessionGrant(state, p.id, command.tool));
}

/**
 * The prompt's requester: the first named approver, as before groups. A request naming only
 * groups has no such person: the one it is on behalf of (who may withdraw it, as in a tally),
 * else Tollgate itself, whom no one can answer as.
 */
function requesterOf(command: ApprovalRequest): Person {
  return (
    command.approvers[0] ??
    command.onBehalfOf ?? { id: TOLLGATE_DECIDER_ID, displayName: 'Tollgate' }
  );
}

/** The request's deadline; reminders from the tool policy when its apiTools name the tool. */
function timerPolicy(command: ApprovalRequest, policy: ToolPolicy) {
  const remindMs = policy.apiEntryFor(command.tool)?.remindMs ?? [];
  const deadline = command.deadline === undefined ? undefined : parseDuration(command.deadline);
  const deadlineMs = deadline?.ok ? deadline.ms : undefined;
  if (deadlineMs === undefined && remindMs.length === 0) return undefined;
  return {
    remindMs: deadlineMs === undefined ? remindMs : remindMs.filter((ms) => ms < deadlineMs),
    onDeadline: command.onDeadline ?? 'expire',
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
  };
}
