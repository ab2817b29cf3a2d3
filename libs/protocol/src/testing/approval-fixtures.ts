import type { ApprovalCancel, ApprovalRequest } from '../approval-commands.schema';
import type { ApprovalDecided } from '../approval-decided.schema';
import { argumentsHashOf } from '../arguments-hash';
import { deriveAgentSessionId } from '../session-id';
import { conversation } from './message-fixtures';

/** Valid approval API messages for specs (docs/protocol.md, 2026-12-01 (b)). */

export const clientId = 'cli_0123456789abcdef01234567';
export const approvalId = 'apr_0123456789abcdefghijklmnop';
export const agentSessionId = deriveAgentSessionId('slack', clientId, 'sess-1');

const occurredAt = '2024-05-01T12:00:00.000Z';

export function anApprovalRequest(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  const args = overrides.arguments ?? { command: 'rm -rf build' };
  return {
    type: 'ApprovalRequest',
    v: 1,
    id: `api:${overrides.approvalId ?? approvalId}`,
    sessionId: agentSessionId,
    conversation,
    occurredAt,
    approvalId,
    clientId,
    clientName: 'build-bot',
    tool: 'Bash',
    arguments: args,
    argumentsHash: overrides.argumentsHash ?? argumentsHashOf(args),
    summary: 'Clean the build folder',
    caller: { name: 'claude-code', session: 'sess-1' },
    approvers: [{ id: 'U0001', displayName: 'Ada' }],
    options: ['approve_once', 'approve_session', 'approve_always', 'deny'],
    ...overrides,
  };
}

export function anApprovalCancel(overrides: Partial<ApprovalCancel> = {}): ApprovalCancel {
  return {
    type: 'ApprovalCancel',
    v: 1,
    id: `api-cancel:${overrides.approvalId ?? approvalId}`,
    sessionId: agentSessionId,
    conversation,
    occurredAt,
    approvalId,
    clientId,
    ...overrides,
  };
}

export function anApprovalDecided(overrides: Partial<ApprovalDecided> = {}): ApprovalDecided {
  return {
    type: 'ApprovalDecided',
    v: 1,
    id: `decision:${overrides.approvalId ?? approvalId}`,
    occurredAt,
    sessionId: agentSessionId,
    approvalId,
    clientId,
    status: 'approved',
    decision: {
      option: 'approve_once',
      by: { platform: 'slack', id: 'U0001', displayName: 'Ada' },
      via: 'click',
      reason: null,
    },
    decidedAt: occurredAt,
    ...overrides,
  };
}
