import { z } from 'zod';
import { callIdSchema, commandEnvelopeFields } from './envelope.schema';
import { LIMITS } from './limits';
import { personSchema } from './person.schema';
import { principalSchema } from './principal.schema';
import { storableIdentifier } from './storable-identifier';

/*
 * Every schema is strict: an unknown field means a sender speaking another version of the
 * contract, and a version is never guessed (PROTOCOL.md §3), so it is refused, not ignored.
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

export const toolInteractionResponseSchema = z.strictObject({
  type: z.literal('ToolInteractionResponse'),
  ...commandEnvelopeFields,
  callId: callIdSchema,
  // Any key, not just the standard ones: a key the prompt did not offer is answered with
  // `Rejected{option_unavailable}` by the session, never dead-lettered (PROTOCOL.md §4).
  optionKey: storableIdentifier().min(1).max(LIMITS.optionKey),
  sender: personSchema,
  promptRef: storableIdentifier().min(1).optional(),
});

export const commandSchema = z.discriminatedUnion('type', [
  userMessageSchema,
  joinSessionSchema,
  toolInteractionResponseSchema,
]);

export type UserMessage = z.infer<typeof userMessageSchema>;
export type JoinSession = z.infer<typeof joinSessionSchema>;
export type ToolInteractionResponse = z.infer<typeof toolInteractionResponseSchema>;
export type Command = z.infer<typeof commandSchema>;
export type CommandType = Command['type'];

export const COMMAND_TYPES = [
  'UserMessage',
  'JoinSession',
  'ToolInteractionResponse',
] as const satisfies readonly CommandType[];
