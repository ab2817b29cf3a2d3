import { z } from 'zod';
import { conversationSchema } from './conversation.schema';
import { LIMITS } from './limits';
import { storableIdentifier } from './storable-identifier';

export const PROTOCOL_VERSION = 1;

// Ids become `Nats-Msg-Id` header values, where a control character would end the header.
// eslint-disable-next-line no-control-regex
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;

export const commandIdSchema = storableIdentifier()
  .min(1)
  .max(LIMITS.commandId)
  .regex(NO_CONTROL_CHARACTERS, 'must not contain control characters');

export const callIdSchema = storableIdentifier().min(1).max(LIMITS.callId);

/** A platform's own channel or message id, as `ToolInteractionShown` carries them. */
export const platformMessageIdSchema = storableIdentifier()
  .min(1)
  .max(LIMITS.platformMessageId)
  .regex(NO_CONTROL_CHARACTERS, 'must not contain control characters');

/**
 * Who produced a sub-agent's message (docs/protocol.md §4, added 2026-12-01): the delegated
 * agent's name and the parent's `delegate` call. Its presence also ties the message's
 * `sessionId` to the sub-agent session derived from the conversation's session and that call.
 */
export const agentSchema = z.strictObject({
  name: z.string().min(1).max(LIMITS.agentName),
  parentCallId: callIdSchema,
});

/** With a zone (`Z` or an offset): a local time would mean something else on every host. */
export const occurredAtSchema = z.iso.datetime({ offset: true });

/**
 * Fields every payload carries (docs/protocol.md §3). `sessionId` is only a string here: whether it
 * belongs to `conversation` is checked after the shape, so a mismatch gets its own reason.
 */
const envelopeFields = {
  v: z.literal(PROTOCOL_VERSION),
  sessionId: z.string(),
  conversation: conversationSchema,
  occurredAt: occurredAtSchema,
};

export const commandEnvelopeFields = { ...envelopeFields, id: commandIdSchema };

/** For `Request`, `Update` and `Resolved`, which bindings order by `seq`. */
export const journaledOutputEnvelopeFields = {
  ...envelopeFields,
  agent: agentSchema.optional(),
  id: z.string(),
  seq: z.int().min(1),
};

/**
 * For `Rejected` and `TextOutput`: exempt from the `seq` rule, and `seq` 0 when no journaled
 * event caused them (e.g. a response for an unknown session).
 */
export const unorderedOutputEnvelopeFields = {
  ...envelopeFields,
  agent: agentSchema.optional(),
  id: z.string(),
  seq: z.int().min(0),
};

interface OutputIdParts {
  readonly id: string;
  readonly sessionId: string;
  readonly seq: number;
}

/**
 * Why an output's `id` breaks the form of docs/protocol.md §1, or undefined when it does not. The
 * form is checked because bindings deduplicate by it: an id that does not tie to its session
 * and event could collide with another output's.
 */
export function outputIdProblem(output: OutputIdParts): string | undefined {
  const head = `${output.sessionId}:${output.seq}:`;
  if (!output.id.startsWith(head)) {
    return `must start with "<sessionId>:<seq>:" of this output`;
  }
  const tail = output.id.slice(head.length);
  if (output.seq === 0) {
    return commandIdSchema.safeParse(tail).success
      ? undefined
      : `must end in the causing command's id when seq is 0`;
  }
  return /^(0|[1-9][0-9]{0,8})$/.test(tail) ? undefined : 'must end in the output index n';
}

/** For `.superRefine` on an output schema: reports {@link outputIdProblem} on `id`. */
export function checkOutputId(output: OutputIdParts, ctx: z.RefinementCtx): void {
  const problem = outputIdProblem(output);
  if (problem !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['id'], message: problem });
  }
}
