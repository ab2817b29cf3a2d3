import { randomBytes } from 'node:crypto';
import {
  type ApprovalRequest,
  argumentsHashOf,
  type Conversation,
  deriveAgentSessionId,
  type Person,
} from '@tollgate/protocol';

export const newClientId = (): string => `cli_${randomBytes(12).toString('hex')}`;

export const newApprovalId = (): string =>
  `apr_${[...randomBytes(26)].map((b) => '0123456789abcdefghijklmnopqrstuvwxyz'[b % 36]).join('')}`;

/**
 * An `ApprovalRequest` as approval-api publishes it (docs/protocol.md §8.3): a fresh approval id
 * unless given, and the agent session derived from the route, the client and the caller's session.
 */
export function apiApprovalRequest(
  route: Conversation,
  clientId: string,
  approvers: readonly Person[],
  overrides: Partial<ApprovalRequest> = {},
): ApprovalRequest {
  const approvalId = overrides.approvalId ?? newApprovalId();
  const args = overrides.arguments ?? { command: 'rm -rf build', cwd: '/srv/app' };
  const caller = overrides.caller ?? { name: 'claude-code', session: 'sess-1' };
  return {
    type: 'ApprovalRequest',
    v: 1,
    id: `api:${approvalId}`,
    sessionId: deriveAgentSessionId(route.platform, clientId, caller.session),
    conversation: route,
    occurredAt: new Date().toISOString(),
    approvalId,
    clientId,
    clientName: 'build-bot',
    tool: 'Bash',
    arguments: args,
    argumentsHash: argumentsHashOf(args),
    summary: 'Clean the build folder',
    caller,
    approvers: [...approvers],
    options: ['approve_once', 'approve_session', 'approve_always', 'deny'],
    ...overrides,
  };
}
