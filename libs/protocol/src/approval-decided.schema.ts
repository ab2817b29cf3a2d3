import { z } from 'zod';
import { approvalIdSchema, clientIdSchema } from './approval-commands.schema';
import { PROTOCOL_VERSION, occurredAtSchema } from './envelope.schema';
import { argumentsHashOf } from './arguments-hash';
import { issueDetail } from './issue-detail';
import { jsonArgumentsSchema } from './json-arguments';
import { LIMITS } from './limits';
import { decodeJson } from './message.codec';
import { optionKeySchema } from './option.schema';
import { accepted, refused, type ParseResult } from './parse-result';
import { platformSchema } from './platform';
import { isAgentSessionId } from './session-id';
import { storableIdentifier } from './storable-identifier';

export const APPROVAL_STATUSES = ['approved', 'denied', 'expired', 'cancelled'] as const;
export const DECISION_VIAS = ['click', 'text', 'grant', 'deadline'] as const;

/** The id `by` carries when Tollgate itself decided (a deadline). */
export const TOLLGATE_DECIDER_ID = 'tollgate';

export const approvalDecisionSchema = z.strictObject({
  option: optionKeySchema,
  by: z.strictObject({
    platform: platformSchema,
    id: storableIdentifier().min(1),
    displayName: z.string().optional(),
  }),
  via: z.enum(DECISION_VIAS),
  reason: z.string().max(500).nullable(),
  /**
   * Added 2026-12-01 (c), G1: with a quorum, every approval counted, oldest first (approved:
   * all of them, `by` the last; denied: those the veto overruled).
   */
  approvals: z
    .array(
      z.strictObject({
        by: z.strictObject({
          platform: platformSchema,
          id: storableIdentifier().min(1),
          displayName: z.string().optional(),
        }),
        at: occurredAtSchema,
      }),
    )
    .max(LIMITS.approvers)
    .optional(),
  /**
   * Added 2026-12-01 (d), G2: approved with arguments an approver edited; the agent runs these,
   * and redeems with their hash (docs/protocol.md §10). Both or neither.
   */
  finalArguments: jsonArgumentsSchema.optional(),
  finalArgumentsHash: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/)
    .optional(),
});

/**
 * The one event per approval the session service publishes through its outbox to
 * `<prefix>.decision.<clientId>.<approvalId>` (docs/protocol.md, 2026-12-01 (b)). `decision` is
 * null for a cancelled approval and for one that expired without a deadline (undeliverable,
 * superseded); a deadline's expiry carries `via: 'deadline'` and `option: 'deny'` — the tool
 * does not run either way, `status` says which.
 */
export const approvalDecidedSchema = z
  .strictObject({
    type: z.literal('ApprovalDecided'),
    v: z.literal(PROTOCOL_VERSION),
    id: z.string(),
    occurredAt: occurredAtSchema,
    sessionId: z.string().refine(isAgentSessionId, 'must be an agent session id'),
    approvalId: approvalIdSchema,
    clientId: clientIdSchema,
    status: z.enum(APPROVAL_STATUSES),
    decision: approvalDecisionSchema.nullable(),
    decidedAt: occurredAtSchema,
  })
  .superRefine((event, ctx) => {
    if (event.id !== `decision:${event.approvalId}`) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: 'must be decision:<approvalId>' });
    }
    const final = event.decision;
    if (
      final !== null &&
      (final.finalArguments === undefined) !== (final.finalArgumentsHash === undefined)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['decision', 'finalArguments'],
        message: 'finalArguments and finalArgumentsHash come together',
      });
    } else if (
      final?.finalArguments !== undefined &&
      (event.status !== 'approved' ||
        argumentsHashOf(final.finalArguments) !== final.finalArgumentsHash)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['decision', 'finalArgumentsHash'],
        message: 'must be the hash of finalArguments, on an approval',
      });
    }
    const problem = decisionProblem(event.status, event.decision);
    if (problem !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['decision'], message: problem });
    }
  });

export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export type DecisionVia = (typeof DECISION_VIAS)[number];
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;
export type ApprovalDecided = z.infer<typeof approvalDecidedSchema>;

function decisionProblem(
  status: ApprovalStatus,
  decision: ApprovalDecision | null,
): string | undefined {
  switch (status) {
    case 'approved':
      return decision === null || decision.option === 'deny' || decision.via === 'deadline'
        ? 'an approval must carry an approving option given by a person'
        : undefined;
    case 'denied':
      return decision === null || decision.option !== 'deny' || decision.via === 'grant'
        ? 'a denial must carry the option deny'
        : undefined;
    case 'expired':
      return decision === null || (decision.via === 'deadline' && decision.option === 'deny')
        ? undefined
        : 'an expiry carries no decision, or a deadline deny';
    case 'cancelled':
      return decision === null ? undefined : 'a cancellation carries no decision';
  }
}

/** Validates a decision event from bytes, JSON text or a decoded value; never throws. */
export function parseApprovalDecided(input: unknown): ParseResult<ApprovalDecided> {
  const decoded = decodeJson(input);
  if (!decoded.ok) return decoded;
  const message = decoded.value;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return refused('not_an_object', 'payload is not a JSON object');
  }
  const { v, type } = message as { v?: unknown; type?: unknown };
  if (v !== PROTOCOL_VERSION) return refused('unknown_version', `v: expected ${PROTOCOL_VERSION}`);
  if (type !== 'ApprovalDecided') return refused('unknown_type', 'type: is not ApprovalDecided');
  const parsed = approvalDecidedSchema.safeParse(message);
  return parsed.success
    ? accepted(parsed.data)
    : refused('invalid_payload', `ApprovalDecided: ${issueDetail(parsed.error)}`);
}
