import { memberOfSchema } from './approver-group.schema';
import { z } from 'zod';
import { approvalCancelSchema, approvalRequestSchema } from './approval-commands.schema';
import { argumentEditsSchema, EDIT_OPTION_KEY } from './argument-edit.schema';
import {
  agentSchema,
  callIdSchema,
  commandEnvelopeFields,
  platformMessageIdSchema,
} from './envelope.schema';
import { LIMITS } from './limits';
import { personSchema } from './person.schema';
import { principalSchema } from './principal.schema';
import { storableIdentifier } from './storable-identifier';

/*
 * Every schema is strict: an unknown field means a sender speaking another version of the
 * contract, and a version is never guessed (docs/protocol.md §3), so it is refused, not ignored.
 */

export const userMessageSchema = z.strictObject({
  type: z.literal('UserMessage'),
  ...commandEnvelopeFields,
  sender: personSchema,
  text: z.string().max(LIMITS.text),
  principal: principalSchema.optional(),
});

/** Asks the session to re-announce its pending approvals, e.g. after a binding restarted. */
export const joinSessionSchema = z.strictObject({
  type: z.literal('JoinSession'),
  ...commandEnvelopeFields,
});

export const toolInteractionResponseSchema = z
  .strictObject({
    type: z.literal('ToolInteractionResponse'),
    ...commandEnvelopeFields,
    callId: callIdSchema,
    // Any key, not just the standard ones: a key the prompt did not offer is answered with
    // `Rejected{option_unavailable}` by the session, never dead-lettered (docs/protocol.md §4).
    optionKey: storableIdentifier().min(1).max(LIMITS.optionKey),
    sender: personSchema,
    promptRef: storableIdentifier().min(1).optional(),
    /** The answered prompt was a sub-agent's: echoed from its `Request` (added 2026-12-01). */
    agent: agentSchema.optional(),
    /**
     * Added 2026-12-01 (b): `text` when the answer was typed rather than clicked (§1.3), so an
     * approval's decision can say how it was given; absent means a click.
     */
    via: z.literal('text').optional(),
    /**
     * G2: the texts the approver typed into the prompt's edit form, per editable argument; the
     * session checks them against the prompt's constraints. Only with `approve_once`.
     */
    edits: argumentEditsSchema.optional(),
    /**
     * Added 2026-12-01 (e), G1: the prompt's approver groups the binding found the sender in,
     * by the members it resolved and journaled when it posted the prompt. Absent: none.
     */
    memberOf: memberOfSchema.optional(),
  })
  .refine((response) => response.edits === undefined || response.optionKey === EDIT_OPTION_KEY, {
    path: ['optionKey'],
    message: `must be ${EDIT_OPTION_KEY} with edits`,
  });

/**
 * A binding could never show a prompt (the platform refused its `Request` for good): the
 * session expires the call instead of waiting for an answer that cannot come (docs/protocol.md §4,
 * added 2026-11-30). `reason` is the platform's own error code.
 */
export const toolInteractionUndeliverableSchema = z.strictObject({
  type: z.literal('ToolInteractionUndeliverable'),
  ...commandEnvelopeFields,
  callId: callIdSchema,
  reason: z.string().min(1).max(LIMITS.undeliverableReason),
  agent: agentSchema.optional(),
});

/**
 * G4: a binding posted a prompt (`posted`), or a new message in place of one it could no longer
 * edit (`reposted`), and says where, in the platform's own ids (Slack channel and `ts`, Discord
 * channel and message id, Mattermost channel and post id), so the session's audit trail
 * records the prompt as shown (docs/protocol.md §4, added 2026-12-01). Edits of the same
 * message are not reported: its ids do not change.
 */
export const toolInteractionShownSchema = z.strictObject({
  type: z.literal('ToolInteractionShown'),
  ...commandEnvelopeFields,
  callId: callIdSchema,
  messageRef: z.strictObject({
    channelId: platformMessageIdSchema,
    messageId: platformMessageIdSchema,
  }),
  shown: z.enum(['posted', 'reposted']),
  agent: agentSchema.optional(),
});

export const commandSchema = z.discriminatedUnion('type', [
  userMessageSchema,
  joinSessionSchema,
  toolInteractionResponseSchema,
  toolInteractionUndeliverableSchema,
  toolInteractionShownSchema,
  approvalRequestSchema,
  approvalCancelSchema,
]);

export type UserMessage = z.infer<typeof userMessageSchema>;
export type JoinSession = z.infer<typeof joinSessionSchema>;
export type ToolInteractionResponse = z.infer<typeof toolInteractionResponseSchema>;
export type ToolInteractionUndeliverable = z.infer<typeof toolInteractionUndeliverableSchema>;
export type ToolInteractionShown = z.infer<typeof toolInteractionShownSchema>;
export type Command = z.infer<typeof commandSchema>;
export type CommandType = Command['type'];

export const COMMAND_TYPES = [
  'UserMessage',
  'JoinSession',
  'ToolInteractionResponse',
  'ToolInteractionUndeliverable',
  'ToolInteractionShown',
  'ApprovalRequest',
  'ApprovalCancel',
] as const satisfies readonly CommandType[];
