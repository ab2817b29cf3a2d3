import {
  type ArgumentChange,
  type ArgumentEdit,
  argumentsHashOf,
  type ConstraintRefusal,
  constraintToJson,
  narrows,
  normalisedPath,
  parseArgumentConstraint,
  type ArgumentConstraint,
  type EditableArgument,
  type JsonObject,
  type JsonValue,
  MAX_CHANGE_TEXT,
} from '@tollgate/protocol';
import { canonicalize } from 'json-canonicalize';

/**
 * G2: whether an approver's edit of a prompt's arguments may run, and with what. Pure: given the
 * prompt's editable arguments (journaled with its request, so a later policy change moves
 * nothing) and the call's arguments, when an approver submits the form's texts, then either the
 * arguments to run (bound to their hash) and what changed, or why not.
 *
 * A form gives text; each text is read as the current value's type (a number stays a number, a
 * list is one item per line), so an approver cannot turn an argument into something of another
 * kind. Only the named arguments may change, and each only inside its constraint, which is what
 * makes an edit a narrowing: the constraint is the space the policy lets an approver choose in.
 */

export type EditRefusalCode = ConstraintRefusal | 'not_editable' | 'not_offered';

export type EditDecision =
  | {
      readonly kind: 'accepted';
      /** The arguments to run, whole. */
      readonly arguments: JsonObject;
      readonly argumentsHash: string;
      /** Only the arguments whose value changed, in the prompt's order. */
      readonly changes: readonly ArgumentChange[];
    }
  | {
      readonly kind: 'refused';
      readonly code: EditRefusalCode;
      /** The argument at fault; absent when the prompt offers no edit at all. */
      readonly argument?: string;
      /** For the approver alone (a private notice). */
      readonly text: string;
    };

export interface EditGiven {
  readonly editable: readonly EditableArgument[] | undefined;
  /** The call's arguments as they would run unedited. */
  readonly arguments: JsonObject;
}

export function decideEdit(given: EditGiven, edits: readonly ArgumentEdit[]): EditDecision {
  const editable = given.editable ?? [];
  if (editable.length === 0) {
    return {
      kind: 'refused',
      code: 'not_offered',
      text: 'This request cannot be edited; nothing was run.',
    };
  }
  const next: JsonObject = { ...given.arguments };
  for (const edit of edits) {
    const field = editable.find((e) => e.name === edit.name);
    if (!field) {
      return refused('not_editable', edit.name, `${edit.name} may not be edited`);
    }
    const value = readAs(field.value, edit.text);
    if (value === undefined) {
      return refused('wrong_type', edit.name, `${edit.name} ${kindProblem(field.value)}`);
    }
    const constraint = parseArgumentConstraint(field.constraint);
    // Journaled by this service from a policy it parsed; one it cannot read allows nothing.
    if (!constraint.ok) {
      return refused('not_editable', edit.name, `${edit.name} may not be edited`);
    }
    const before = Object.hasOwn(given.arguments, edit.name)
      ? given.arguments[edit.name]
      : undefined;
    const check = narrows(constraint.constraint, before, value);
    if (!check.ok) {
      return refused(
        check.reason,
        edit.name,
        `${edit.name} ${check.detail} (you entered ${cut(shown(value), 100)})`,
      );
    }
    Object.defineProperty(next, edit.name, {
      value: runAs(constraint.constraint, value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const changes = editable.flatMap((field): ArgumentChange[] => {
    if (!edits.some((e) => e.name === field.name)) return [];
    const before = Object.hasOwn(given.arguments, field.name)
      ? given.arguments[field.name]
      : undefined;
    const after = next[field.name];
    if (before !== undefined && canonicalize(before) === canonicalize(after)) return [];
    return [
      {
        name: field.name,
        from: before === undefined ? '(none)' : cut(shown(before), MAX_CHANGE_TEXT),
        to: cut(shown(after), MAX_CHANGE_TEXT),
      },
    ];
  });
  return { kind: 'accepted', arguments: next, argumentsHash: argumentsHashOf(next), changes };
}

/** A path runs in the form it was checked in (`.` and repeated `/` dropped). */
function runAs(constraint: ArgumentConstraint, value: JsonValue): JsonValue {
  if (constraint.kind !== 'prefix' || typeof value !== 'string') return value;
  const path = normalisedPath(value);
  return typeof path === 'string' ? path : value;
}

/**
 * What a prompt offers to edit: the policy's editable arguments that the call has, with their
 * current values. Undefined (no "Edit & approve") when it has none of them.
 */
export function editableArguments(
  policy: readonly { readonly name: string; readonly constraint: ArgumentConstraint }[] | undefined,
  args: JsonObject | undefined,
): EditableArgument[] | undefined {
  if (!policy || !args) return undefined;
  const offered = policy.flatMap((p) =>
    Object.hasOwn(args, p.name)
      ? [{ name: p.name, value: args[p.name], constraint: constraintToJson(p.constraint) }]
      : [],
  );
  return offered.length > 0 ? offered : undefined;
}

function refused(code: EditRefusalCode, argument: string, why: string): EditDecision {
  return {
    kind: 'refused',
    code,
    argument,
    text: `Not approved: ${why}. Nothing was run; the request is still waiting for an answer.`,
  };
}

/** The form's text as a value of the current value's kind; undefined when it cannot be. */
function readAs(current: JsonValue, text: string): JsonValue | undefined {
  if (typeof current === 'string') return text;
  if (typeof current === 'number') {
    const trimmed = text.trim();
    const number = trimmed === '' ? Number.NaN : Number(trimmed);
    return Number.isFinite(number) ? number : undefined;
  }
  if (typeof current === 'boolean') {
    const word = text.trim().toLowerCase();
    return word === 'true' ? true : word === 'false' ? false : undefined;
  }
  if (Array.isArray(current)) {
    const items = text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    if (!current.every((item) => typeof item === 'number')) return items;
    const numbers = items.map(Number);
    return numbers.every(Number.isFinite) ? numbers : undefined;
  }
  // An object or null: edited as JSON, and must stay the same kind.
  try {
    const parsed: unknown = JSON.parse(text);
    const sameKind =
      current === null
        ? parsed === null
        : typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    return sameKind ? (parsed as JsonValue) : undefined;
  } catch {
    return undefined;
  }
}

function kindProblem(current: JsonValue): string {
  if (typeof current === 'number') return 'must be a number';
  if (typeof current === 'boolean') return 'must be true or false';
  if (Array.isArray(current)) return 'must be a list of numbers, one a line';
  return 'must be JSON of the same kind';
}

function shown(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map((v) => shown(v)).join(', ')}]`;
  return typeof value === 'string' ? value : canonicalize(value);
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
