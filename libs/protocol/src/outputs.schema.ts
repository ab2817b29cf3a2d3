import { z } from 'zod';
import {
  callIdSchema,
  checkOutputId,
  journaledOutputEnvelopeFields,
  unorderedOutputEnvelopeFields,
} from './envelope.schema';
import { argumentsEditSchema, editableArgumentsSchema } from './argument-edit.schema';
import { LIMITS } from './limits';
import { optionKeySchema, optionSchema } from './option.schema';
import { personSchema } from './person.schema';
import { principalSchema } from './principal.schema';
import { approverGroupsSchema } from './approver-group.schema';
import { approvalCountSchema, quorumSchema } from './quorum.schema';

/*
 * Every schema is strict: an unknown field means a sender speaking another version of the
 * contract, and a version is never guessed (docs/protocol.md §3), so it is refused, not ignored.
 */

export const toolInteractionRequestSchema = z
  .strictObject({
    type: z.literal('ToolInteractionRequest'),
    ...journaledOutputEnvelopeFields,
    callId: callIdSchema,
    batchId: z.string().min(1),
    toolName: z.string().min(1),
    displayText: z.string().max(LIMITS.displayText),
    requester: personSchema,
    /**
     * Added 2026-12-01 (b): who may answer an approval API prompt (1–20 persons; `requester` is
     * the first). Absent on the session's own prompts, which only `requester` answers.
     */
    approvers: z.array(personSchema).min(1).max(LIMITS.approvers).optional(),
    /**
     * Added 2026-12-01 (e), G1: platform groups whose members may approve too (a Slack user
     * group, a Discord role, a Mattermost group), resolved by the binding when it posts.
     */
    approverGroups: approverGroupsSchema.optional(),
    principal: principalSchema,
    /**
     * Added 2026-12-01 (c), G1: the prompt needs more than its requester's one answer (a
     * quorum, or `separateApprover`), with the tally so far. Absent: the first answer decides.
     */
    quorum: quorumSchema.optional(),
    /**
     * G2: the arguments the approver may edit before approving ("Edit & approve"), each with its
     * current value and the constraint an edit must stay inside. Absent: no edit is offered.
     */
    editable: editableArgumentsSchema.optional(),
    // A prompt without buttons could never be answered, and a key offered twice would make
    // the label of a `Resolved` ambiguous.
    options: z
      .array(optionSchema)
      .min(1)
      .refine(
        (options) => new Set(options.map((option) => option.key)).size === options.length,
        'must not offer a key twice',
      ),
  })
  .superRefine(checkOutputId);

/** `Tallied` (added 2026-12-01 (c), G1): an approval was counted, the quorum is not reached. */
export const UPDATE_STATUSES = [
  'RefreshedAfterRestart',
  'Abandoned',
  'Expired',
  'Tallied',
] as const;

export const toolInteractionUpdateSchema = z
  .strictObject({
    type: z.literal('ToolInteractionUpdate'),
    ...journaledOutputEnvelopeFields,
    callId: callIdSchema,
    status: z.enum(UPDATE_STATUSES),
    reason: z.string().optional(),
    request: toolInteractionRequestSchema.optional(),
  })
  .superRefine(checkOutputId)
  .superRefine((update, ctx) => {
    const { request } = update;
    if (request === undefined) {
      if (update.status === 'RefreshedAfterRestart' || update.status === 'Tallied') {
        // A binding with no record of the prompt re-posts it from this (docs/protocol.md §4).
        ctx.addIssue({
          code: 'custom',
          path: ['request'],
          message: `is required when status is ${update.status}`,
        });
      }
      return;
    }
    if (update.status === 'Tallied' && request.quorum === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['request', 'quorum'],
        message: 'is required when status is Tallied (it carries the tally)',
      });
    }
    const sameConversation = (['platform', 'workspaceId', 'channelId', 'threadId'] as const).every(
      (field) => request.conversation[field] === update.conversation[field],
    );
    if (
      request.sessionId !== update.sessionId ||
      request.callId !== update.callId ||
      !sameConversation
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['request'],
        message: 'must be the request of this session and call',
      });
    }
  });

export const toolInteractionResolvedSchema = z
  .strictObject({
    type: z.literal('ToolInteractionResolved'),
    ...journaledOutputEnvelopeFields,
    callId: callIdSchema,
    optionKey: optionKeySchema,
    label: z.string().min(1).max(LIMITS.optionLabel),
    resolvedBy: personSchema,
    /**
     * Added 2026-12-01 (c), G1: on a prompt with a quorum, every approval counted, oldest first
     * (an approval: the last is `resolvedBy`'s; a veto: those it overruled, maybe none).
     */
    approvals: z.array(approvalCountSchema).max(LIMITS.approvers).optional(),
    /** G2: approved with edited arguments (by `resolvedBy`): what changed, and their hash. */
    edit: argumentsEditSchema.optional(),
  })
  .superRefine(checkOutputId);

/**
 * `already_answered` and `own_call` added 2026-12-01 (c), G1: a second click by one approver of
 * a quorum, and the requester approving their own call under `separateApprover`.
 */
export const REJECTION_REASONS = [
  'wrong_requester',
  'option_unavailable',
  'prompt_expired',
  'persist_failed',
  'already_answered',
  'own_call',
  /** G2: an edit that is not allowed (an argument not editable, or outside its constraint). */
  'edit_refused',
] as const;

export const toolInteractionRejectedSchema = z
  .strictObject({
    type: z.literal('ToolInteractionRejected'),
    ...unorderedOutputEnvelopeFields,
    callId: callIdSchema,
    sender: personSchema,
    reason: z.enum(REJECTION_REASONS),
    /** The notice shown privately to the sender. */
    text: z.string().max(LIMITS.text),
  })
  .superRefine(checkOutputId);

export const TEXT_ROLES = ['assistant', 'notice'] as const;

export const textOutputSchema = z
  .strictObject({
    type: z.literal('TextOutput'),
    ...unorderedOutputEnvelopeFields,
    text: z.string().max(LIMITS.text),
    role: z.enum(TEXT_ROLES),
    /**
     * Added 2026-12-01: a person the post addresses (a reminder's requester). Built by Tollgate,
     * never taken from model or user text, so each binding renders it as its platform's real
     * mention, ahead of the inert text (docs/protocol.md §4, §7).
     */
    mention: personSchema.optional(),
  })
  .superRefine(checkOutputId);

export const outputSchema = z.discriminatedUnion('type', [
  toolInteractionRequestSchema,
  toolInteractionUpdateSchema,
  toolInteractionResolvedSchema,
  toolInteractionRejectedSchema,
  textOutputSchema,
]);

export type ToolInteractionRequest = z.infer<typeof toolInteractionRequestSchema>;
export type ToolInteractionUpdate = z.infer<typeof toolInteractionUpdateSchema>;
export type ToolInteractionUpdateStatus = ToolInteractionUpdate['status'];
export type ToolInteractionResolved = z.infer<typeof toolInteractionResolvedSchema>;
export type ToolInteractionRejected = z.infer<typeof toolInteractionRejectedSchema>;
export type RejectionReason = ToolInteractionRejected['reason'];
export type TextOutput = z.infer<typeof textOutputSchema>;
export type TextRole = TextOutput['role'];
export type Output = z.infer<typeof outputSchema>;
export type OutputType = Output['type'];

/** The outputs that concern one call, as opposed to a session's text. */
export type CallOutput = Exclude<Output, TextOutput>;

export const OUTPUT_TYPES = [
  'ToolInteractionRequest',
  'ToolInteractionUpdate',
  'ToolInteractionResolved',
  'ToolInteractionRejected',
  'TextOutput',
] as const satisfies readonly OutputType[];
