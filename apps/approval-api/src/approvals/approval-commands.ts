import type { ApprovalClient } from '@tollgate/approval-clients';
import {
  type ApprovalCancel,
  type ApprovalRequest,
  argumentsHashOf,
  deriveAgentSessionId,
  LIMITS,
  PROTOCOL_VERSION,
} from '@tollgate/protocol';
import type { ApprovalAsk } from './approval-body.rules';

/** The command that asks the session service for this approval (docs/protocol.md). */
export function approvalRequestOf(
  approvalId: string,
  client: ApprovalClient,
  ask: ApprovalAsk,
  now: Date,
): ApprovalRequest {
  return {
    type: 'ApprovalRequest',
    v: PROTOCOL_VERSION,
    id: `api:${approvalId}`,
    sessionId: deriveAgentSessionId(ask.route.platform, client.id, ask.agent.session),
    occurredAt: now.toISOString(),
    conversation: {
      platform: ask.route.platform,
      workspaceId: ask.route.workspace,
      channelId: ask.route.channel,
      threadId: ask.route.thread,
    },
    approvalId,
    clientId: client.id,
    clientName: client.name.slice(0, LIMITS.clientName),
    tool: ask.tool,
    arguments: ask.arguments,
    argumentsHash: argumentsHashOf(ask.arguments),
    ...(ask.summary === undefined ? {} : { summary: ask.summary }),
    caller: { name: ask.agent.name, session: ask.agent.session },
    ...(ask.onBehalfOf === null ? {} : { onBehalfOf: { id: ask.onBehalfOf } }),
    approvers: ask.approvers.map((id) => ({ id })),
    ...(ask.approverGroups === undefined ? {} : { approverGroups: [...ask.approverGroups] }),
    options: [...ask.options],
    ...(ask.deadline === undefined ? {} : { deadline: ask.deadline }),
    ...(ask.onDeadline === undefined ? {} : { onDeadline: ask.onDeadline }),
    ...(ask.quorum === undefined ? {} : { quorum: ask.quorum }),
    ...(ask.separateApprover === undefined ? {} : { separateApprover: ask.separateApprover }),
    ...(ask.always === undefined ? {} : { always: ask.always }),
  };
}

/** Withdraws the approval; the session drops it if it was decided meanwhile. */
export function approvalCancelOf(request: ApprovalRequest, now: Date): ApprovalCancel {
  return {
    type: 'ApprovalCancel',
    v: PROTOCOL_VERSION,
    id: `api-cancel:${request.approvalId}`,
    sessionId: request.sessionId,
    occurredAt: now.toISOString(),
    conversation: request.conversation,
    approvalId: request.approvalId,
    clientId: request.clientId,
  };
}
