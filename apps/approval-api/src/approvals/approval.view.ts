import type { ApprovalDecision } from '@tollgate/protocol';

export const STATUSES = ['pending', 'approved', 'denied', 'expired', 'cancelled'] as const;
export type Status = (typeof STATUSES)[number];

/** One approval as the read model holds it. */
export interface ApprovalRecord {
  readonly id: string;
  readonly clientId: string;
  readonly status: Status;
  readonly tool: string;
  readonly argumentsHash: string;
  readonly agent: { name: string; session: string };
  readonly route: { platform: string; workspace: string; channel: string; thread: string };
  readonly createdAt: Date;
  readonly decidedAt: Date | null;
  readonly decision: ApprovalDecision | null;
  readonly redeemedAt: Date | null;
}

/** The body of every answer about an approval (docs/protocol.md, the approval API). */
export function approvalView(record: ApprovalRecord): Record<string, unknown> {
  return {
    id: record.id,
    status: record.status,
    tool: record.tool,
    argumentsHash: record.argumentsHash,
    agent: { name: record.agent.name, session: record.agent.session },
    route: {
      platform: record.route.platform,
      workspace: record.route.workspace,
      channel: record.route.channel,
      thread: record.route.thread,
    },
    createdAt: record.createdAt.toISOString(),
    decidedAt: record.decidedAt?.toISOString() ?? null,
    decision: record.decision,
    redeemedAt: record.redeemedAt?.toISOString() ?? null,
  };
}
