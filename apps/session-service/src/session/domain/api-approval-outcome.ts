import {
  type ApprovalDecided,
  type ApprovalDecision,
  approvalDecidedId,
  type ApprovalRequest,
  type ApprovalStatus,
  type Conversation,
  PROTOCOL_VERSION,
} from '@tollgate/protocol';
import {
  type GrantUse,
  type JournaledGrantOffer,
  type PendingApiApproval,
  pendingApiApprovals,
  type SessionState,
} from '@tollgate/session-read-model';
import type { OutputDraft, SessionRecorder } from './session-recorder';

/**
 * A2: how an API approval ends. Each ends in exactly one `ApiApprovalDecided` whose
 * `ApprovalDecided` goes out through the outbox in the same transaction.
 */

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

export interface ApprovalRef {
  readonly approvalId: string;
  readonly clientId: string;
  readonly conversation: Conversation;
  readonly tool: string;
}

export function approvalOf(command: ApprovalRequest): ApprovalRef {
  return {
    approvalId: command.approvalId,
    clientId: command.clientId,
    conversation: command.conversation,
    tool: command.tool,
  };
}

export function approvalFromState(state: SessionState, approval: PendingApiApproval): ApprovalRef {
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
export function decideApproval(
  recorder: SessionRecorder,
  approval: ApprovalRef,
  commandId: string,
  status: ApprovalStatus,
  decision: ApprovalDecision | null,
  drafts: readonly OutputDraft[],
  grants: { readonly grantOffer?: JournaledGrantOffer; readonly grant?: GrantUse } = {},
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
      ...grants,
    },
    drafts,
    { conversation: approval.conversation, decisions: [decided] },
  );
}
