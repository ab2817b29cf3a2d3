import { canonicalize } from 'json-canonicalize';
import { z } from 'zod';
import { parseArgumentConstraint } from './argument-constraint';
import { type JsonValue } from './json-arguments';

/*
 * G2 — approve with edited arguments (docs/protocol.md §9). A prompt names the arguments an
 * approver may change and the constraint each must stay inside; an answer carries the texts
 * the approver typed into the platform's form; the decision carries what changed.
 */

/** Discord's modal holds at most five inputs: no prompt offers more, on any platform. */
export const MAX_EDITABLE_ARGUMENTS = 5;
/** Discord's text input holds at most 4,000 characters; Slack's 3,000 is checked by Slack. */
export const MAX_EDIT_TEXT = 4_000;
/** A change is shown, not stored: each side is cut to this for the prompt. */
export const MAX_CHANGE_TEXT = 500;

const argumentName = z.string().min(1).max(128);

/** A constraint as a policy writes it (`{ prefix: /srv/a }`), so every binding can read it. */
const constraintJson = z.record(z.string(), z.unknown()).superRefine((raw, ctx) => {
  const parsed = parseArgumentConstraint(raw);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.problem });
});

const jsonValue = z.custom<JsonValue>(
  (value) => value === null || ['string', 'number', 'boolean', 'object'].includes(typeof value),
  'must be a JSON value',
);

function distinctNames(items: readonly { name: string }[]): boolean {
  return new Set(items.map((item) => item.name)).size === items.length;
}

/** One argument of a `Request` that may be edited, with its current value. */
export const editableArgumentSchema = z.strictObject({
  name: argumentName,
  value: jsonValue,
  constraint: constraintJson,
});
export type EditableArgument = z.infer<typeof editableArgumentSchema>;

export const editableArgumentsSchema = z
  .array(editableArgumentSchema)
  .min(1)
  .max(MAX_EDITABLE_ARGUMENTS)
  .refine(distinctNames, 'must not name an argument twice');

/** What the approver typed for one argument: the session reads it by the current value's type. */
export const argumentEditSchema = z.strictObject({
  name: argumentName,
  text: z.string().max(MAX_EDIT_TEXT),
});
export type ArgumentEdit = z.infer<typeof argumentEditSchema>;

export const argumentEditsSchema = z
  .array(argumentEditSchema)
  .min(1)
  .max(MAX_EDITABLE_ARGUMENTS)
  .refine(distinctNames, 'must not name an argument twice');

/** One changed argument, as the prompt shows it: `name: from → to`. */
export const argumentChangeSchema = z.strictObject({
  name: argumentName,
  from: z.string().max(MAX_CHANGE_TEXT + 40),
  to: z.string().max(MAX_CHANGE_TEXT + 40),
});
export type ArgumentChange = z.infer<typeof argumentChangeSchema>;

/** On a `Resolved`: the approval ran with edited arguments, bound to their hash. */
export const argumentsEditSchema = z.strictObject({
  changes: z.array(argumentChangeSchema).max(MAX_EDITABLE_ARGUMENTS),
  argumentsHash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
});
export type ArgumentsEdit = z.infer<typeof argumentsEditSchema>;

/** The option an edited answer approves with: once, for exactly these arguments. */
export const EDIT_OPTION_KEY = 'approve_once';

/**
 * How an edit form shows a value, prefilled: text as is, a list of texts or numbers one item a
 * line, anything else as its canonical JSON. The session reads a submitted text back by the
 * current value's kind (docs/protocol.md §9).
 */
export function editFormText(value: JsonValue): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) {
    return value.join('\n');
  }
  return canonicalize(value);
}
