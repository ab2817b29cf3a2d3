import {
  type ArgumentConstraint,
  checkConstraint,
  type ConstraintRefusal,
  constraintToJson,
  describeConstraint,
  parseArgumentConstraint,
} from './argument-constraint';
import { quoteValue } from './parse-result';

/**
 * Constraints on some of a call's arguments, by argument name (`{ path: { prefix: /srv/notes } }`):
 * a G3 grant's scope, a G2 tool's editable arguments. Arguments it does not name are free.
 */
export type ArgumentScope = Readonly<Record<string, ArgumentConstraint>>;

/** More than any tool's arguments; bounds a label and a check. */
export const MAX_SCOPED_ARGUMENTS = 16;

export type ScopeParse =
  | { readonly ok: true; readonly scope: ArgumentScope }
  | { readonly ok: false; readonly problem: string };

export type ScopeCheck =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly argument: string;
      readonly reason: ConstraintRefusal | 'missing';
      readonly detail: string;
    };

/** Reads a scope; a problem names the argument, as in `path: prefix must be …`. */
export function parseArgumentScope(raw: unknown): ScopeParse {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, problem: 'must be a map of argument names to constraints' };
  }
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length === 0 || entries.length > MAX_SCOPED_ARGUMENTS) {
    return { ok: false, problem: `must constrain 1 to ${MAX_SCOPED_ARGUMENTS} arguments` };
  }
  const scope: Record<string, ArgumentConstraint> = Object.create(null) as Record<
    string,
    ArgumentConstraint
  >;
  for (const [argument, value] of entries) {
    const parsed = parseArgumentConstraint(value);
    if (!parsed.ok) return { ok: false, problem: `${quoteValue(argument)}: ${parsed.problem}` };
    scope[argument] = parsed.constraint;
  }
  return { ok: true, scope };
}

/** Whether every argument the scope names is present and within its constraint. */
export function checkArguments(scope: ArgumentScope, args: unknown): ScopeCheck {
  const record =
    typeof args === 'object' && args !== null && !Array.isArray(args)
      ? (args as Record<string, unknown>)
      : {};
  for (const [argument, constraint] of Object.entries(scope)) {
    if (!Object.prototype.hasOwnProperty.call(record, argument)) {
      return { ok: false, argument, reason: 'missing', detail: `${argument} is missing` };
    }
    const checked = checkConstraint(constraint, record[argument]);
    if (!checked.ok) {
      return {
        ok: false,
        argument,
        reason: checked.reason,
        detail: `${argument} ${checked.detail}`,
      };
    }
  }
  return { ok: true };
}

export function scopeToJson(scope: ArgumentScope): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(scope).map(([argument, constraint]) => [argument, constraintToJson(constraint)]),
  );
}

/** "path under /srv/notes, limit at most 10", in the scope's order. */
export function describeScope(scope: ArgumentScope): string {
  return Object.entries(scope)
    .map(([argument, constraint]) => `${argument} ${describeConstraint(constraint)}`)
    .join(', ');
}
