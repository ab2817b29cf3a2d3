import { z } from 'zod';
import { APPROVAL_ID_PATTERN, CLIENT_ID_PATTERN } from './approval-ids';
import { approverGroupsSchema } from './approver-group.schema';
import { argumentsHashOf } from './arguments-hash';
import { parseDuration } from './duration';
import { commandEnvelopeFields } from './envelope.schema';
import { grantOfferOf, grantOfferSchema } from './grant-offer';
import { jsonArgumentsProblem, jsonArgumentsSchema } from './json-arguments';
import { LIMITS } from './limits';
import { optionKeySchema } from './option.schema';
import { personSchema } from './person.schema';
import { deriveAgentSessionId, isAgentSessionId } from './session-id';

/*
 * The commands approval-api sends the session service (docs/protocol.md, 2026-12-01 (b)), on
 * `<prefix>.cmd.api.<agent session id>.(approval|cancel)`, which only approval-api may publish.
 * Strict like every command: an unknown field is another version of the contract.
 */

export const clientIdSchema = z.string().regex(CLIENT_ID_PATTERN, 'must be cli_ and 24 hex');
export const approvalIdSchema = z
  .string()
  .regex(APPROVAL_ID_PATTERN, 'must be apr_ and 26 [0-9a-z]');

export const ON_DEADLINE = ['expire', 'deny'] as const;

export const approvalRequestSchema = z
  .strictObject({
    type: z.literal('ApprovalRequest'),
    ...commandEnvelopeFields,
    approvalId: approvalIdSchema,
    clientId: clientIdSchema,
    clientName: z.string().min(1).max(LIMITS.clientName),
    tool: z.string().min(1).max(LIMITS.apiToolName),
    arguments: jsonArgumentsSchema,
    argumentsHash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256: and 64 hex'),
    summary: z.string().max(LIMITS.apiSummary).optional(),
    caller: z.strictObject({
      name: z.string().min(1).max(LIMITS.agentName),
      session: z.string().min(1).max(LIMITS.agentSession),
    }),
    onBehalfOf: personSchema.optional(),
    /** Revised 2026-12-01 (f): may be empty when `approverGroups` names a group. */
    approvers: z
      .array(personSchema)
      .max(LIMITS.approvers)
      .refine(
        (approvers) => new Set(approvers.map((p) => p.id)).size === approvers.length,
        'must not name a person twice',
      ),
    options: z
      .array(optionKeySchema)
      .min(1)
      .refine((keys) => new Set(keys).size === keys.length, 'must not offer a key twice'),
    deadline: z
      .string()
      .refine((text) => parseDuration(text).ok, 'must be a duration such as 30m, 8h or 2d')
      .optional(),
    onDeadline: z.enum(ON_DEADLINE).optional(),
    /** Added 2026-12-01 (c), G1: distinct approvers needed (default 1). */
    quorum: z.number().int().min(1).max(LIMITS.approvers).optional(),
    /** Added 2026-12-01 (c), G1: `onBehalfOf` may deny the call but not approve it. */
    separateApprover: z.boolean().optional(),
    /**
     * Added 2026-12-01 (f), G1: platform groups whose members may answer too, resolved by the
     * posting binding as for a tool policy's groups (§9).
     */
    approverGroups: approverGroupsSchema.optional(),
    /**
     * Added 2026-12-01 (f), G3: what its "Always allow" gives — `scope`, `ttl`, `uses`, `label`
     * as a tool policy's `always:`; absent, the blanket grant of before.
     */
    always: grantOfferSchema.optional(),
  })
  .superRefine((request, ctx) => {
    if (request.approvers.length === 0 && request.approverGroups === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['approvers'],
        message: 'must name a person, or approverGroups a group',
      });
    }
    if (request.id !== `api:${request.approvalId}`) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: 'must be api:<approvalId>' });
    }
    // Only when the arguments are well formed: their own issue says what is wrong otherwise.
    if (
      jsonArgumentsProblem(request.arguments) === undefined &&
      argumentsHashOf(request.arguments) !== request.argumentsHash
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['argumentsHash'],
        message: 'must be the hash of arguments (sha256 of their RFC 8785 form)',
      });
    }
    if (request.onDeadline !== undefined && request.deadline === undefined) {
      ctx.addIssue({ code: 'custom', path: ['onDeadline'], message: 'needs a deadline' });
    }
    if (request.always !== undefined) {
      const offer = grantOfferOf(request.always);
      if (!offer.ok) {
        for (const { field, problem } of offer.problems) {
          ctx.addIssue({ code: 'custom', path: ['always', field], message: problem });
        }
      }
    }
    const quorumProblem = apiQuorumProblem(request);
    if (quorumProblem !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['quorum'], message: quorumProblem });
    }
  });

/**
 * Why an API approval's quorum can never be reached, or undefined: it needs more approvers than
 * it names (leaving out `onBehalfOf` under `separateApprover`); never checked with a group.
 */
export function apiQuorumProblem(request: {
  readonly approvers: readonly { readonly id: string }[];
  readonly approverGroups?: readonly unknown[];
  readonly onBehalfOf?: { readonly id: string };
  readonly quorum?: number;
  readonly separateApprover?: boolean;
}): string | undefined {
  // A group's size is known only when the binding posts the prompt (as for a policy's groups).
  if (request.approverGroups !== undefined && request.approverGroups.length > 0) return undefined;
  const required = request.quorum ?? 1;
  const excluded = request.separateApprover === true ? request.onBehalfOf?.id : undefined;
  const eligible = request.approvers.filter((p) => p.id !== excluded).length;
  return required <= eligible
    ? undefined
    : `needs ${required} distinct approvers but only ${eligible} may approve`;
}

export const approvalCancelSchema = z
  .strictObject({
    type: z.literal('ApprovalCancel'),
    ...commandEnvelopeFields,
    approvalId: approvalIdSchema,
    clientId: clientIdSchema,
  })
  .superRefine((cancel, ctx) => {
    if (cancel.id !== `api-cancel:${cancel.approvalId}`) {
      ctx.addIssue({ code: 'custom', path: ['id'], message: 'must be api-cancel:<approvalId>' });
    }
  });

export type ApprovalRequest = z.infer<typeof approvalRequestSchema>;
export type ApprovalCancel = z.infer<typeof approvalCancelSchema>;
export type OnDeadlineAction = (typeof ON_DEADLINE)[number];

/**
 * Why an approval command's `sessionId` is not its agent session, or undefined. A request names
 * everything its session is derived from; a cancel names only the client, so its session need
 * only be an agent session of the route's platform (the session then checks the client).
 */
export function approvalSessionProblem(
  command: ApprovalRequest | ApprovalCancel,
): string | undefined {
  if (command.type === 'ApprovalRequest') {
    const expected = deriveAgentSessionId(
      command.conversation.platform,
      command.clientId,
      command.caller.session,
    );
    return command.sessionId === expected
      ? undefined
      : `is not the agent session of client ${command.clientId} and caller.session (${expected})`;
  }
  return isAgentSessionId(command.sessionId) &&
    command.sessionId.startsWith(`${command.conversation.platform}-`)
    ? undefined
    : `is not an agent session on ${command.conversation.platform}`;
}
