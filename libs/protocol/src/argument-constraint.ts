import { quoteValue } from './parse-result';
import { checkedPattern, MAX_PATTERN_SUBJECT } from './safe-pattern';

/**
 * A limit on one argument of a tool call, as a tool's policy writes it (G2 editable arguments,
 * G3 grant scopes): one key naming the form.
 *
 * ```yaml
 * path: { prefix: /srv/notes }            # at or under the directory, no `..`
 * name: { pattern: '[a-z0-9-]{1,40}\.md' } # the whole value matches (anchored for you)
 * mode: { enum: [read, append] }          # one of these values
 * limit: { max: 100 }                     # a number at most this
 * tags: { subsetOf: [red, green, blue] }  # a list whose items are all among these
 * ```
 */
export type ArgumentConstraint =
  | { readonly kind: 'enum'; readonly values: readonly ScalarValue[] }
  | { readonly kind: 'pattern'; readonly source: string; readonly regex: RegExp }
  | { readonly kind: 'prefix'; readonly directory: string }
  | { readonly kind: 'max'; readonly max: number }
  | { readonly kind: 'subsetOf'; readonly values: readonly ScalarValue[] };

export type ScalarValue = string | number | boolean;

export const CONSTRAINT_FORMS = ['enum', 'pattern', 'prefix', 'max', 'subsetOf'] as const;
export type ConstraintForm = (typeof CONSTRAINT_FORMS)[number];

/** Why a value falls outside a constraint; closed so a refusal carries a code, not prose. */
export const CONSTRAINT_REFUSALS = [
  'wrong_type',
  'too_long',
  'not_in_enum',
  'pattern_mismatch',
  'outside_prefix',
  'unsafe_path',
  'above_max',
  'not_subset',
  'widens',
] as const;
export type ConstraintRefusal = (typeof CONSTRAINT_REFUSALS)[number];

export type ConstraintCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: ConstraintRefusal; readonly detail: string };

/** Enough for any real choice list; a longer one is a policy typo. */
export const MAX_CONSTRAINT_VALUES = 100;
/** A directory or a value checked as a path; PATH_MAX on Linux. */
export const MAX_PATH_LENGTH = 4_096;

export type ConstraintParse =
  | { readonly ok: true; readonly constraint: ArgumentConstraint }
  | { readonly ok: false; readonly problem: string };

/** Reads one constraint as a policy file or a stored grant holds it (see `constraintToJson`). */
export function parseArgumentConstraint(raw: unknown): ConstraintParse {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return problem(`must be a map with one of ${CONSTRAINT_FORMS.join(', ')}`);
  }
  const keys = Object.keys(raw);
  if (keys.length !== 1 || !(CONSTRAINT_FORMS as readonly string[]).includes(keys[0])) {
    return problem(
      `must have exactly one of ${CONSTRAINT_FORMS.join(', ')}, not ${quoteValue(keys)}`,
    );
  }
  const form = keys[0] as ConstraintForm;
  const value: unknown = (raw as Record<string, unknown>)[form];
  switch (form) {
    case 'enum':
    case 'subsetOf': {
      const values = scalarList(value);
      if (typeof values === 'string') return problem(`${form} ${values}`);
      return { ok: true, constraint: { kind: form, values } };
    }
    case 'pattern': {
      if (typeof value !== 'string') return problem('pattern must be a string');
      const compiled = checkedPattern(value);
      if (!compiled.ok) return problem(`pattern ${compiled.problem}`);
      return { ok: true, constraint: { kind: 'pattern', source: value, regex: compiled.regex } };
    }
    case 'prefix': {
      if (typeof value !== 'string') return problem('prefix must be an absolute directory');
      const directory = normalisedPath(value);
      if (typeof directory !== 'string' || directory !== value.replace(/(?<=.)\/+$/, '')) {
        return problem(
          `prefix must be an absolute, normalised directory (no ., .., // or \\), not ${quoteValue(value)}`,
        );
      }
      return { ok: true, constraint: { kind: 'prefix', directory } };
    }
    case 'max': {
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        return problem(`max must be a finite number, not ${quoteValue(value)}`);
      }
      return { ok: true, constraint: { kind: 'max', max: value } };
    }
  }
}

/** The policy form again, for a journal event or a grant's row; `parseArgumentConstraint` reads it back. */
export function constraintToJson(constraint: ArgumentConstraint): Record<string, unknown> {
  switch (constraint.kind) {
    case 'enum':
    case 'subsetOf':
      return { [constraint.kind]: [...constraint.values] };
    case 'pattern':
      return { pattern: constraint.source };
    case 'prefix':
      return { prefix: constraint.directory };
    case 'max':
      return { max: constraint.max };
  }
}

/** Whether `value` lies within `constraint`, or why not. */
export function checkConstraint(constraint: ArgumentConstraint, value: unknown): ConstraintCheck {
  switch (constraint.kind) {
    case 'enum':
      return constraint.values.some((v) => v === value)
        ? OK
        : refuse('not_in_enum', `must be one of ${quoteValue(constraint.values)}`);
    case 'pattern': {
      if (typeof value !== 'string') return refuse('wrong_type', 'must be a string');
      if (value.length > MAX_PATTERN_SUBJECT) {
        return refuse('too_long', `must be at most ${MAX_PATTERN_SUBJECT} characters`);
      }
      return constraint.regex.test(value)
        ? OK
        : refuse('pattern_mismatch', `must match ${quoteValue(constraint.source)}`);
    }
    case 'prefix': {
      if (typeof value !== 'string') return refuse('wrong_type', 'must be a path');
      const path = normalisedPath(value);
      if (typeof path !== 'string') return refuse('unsafe_path', path.problem);
      return isAtOrUnder(path, constraint.directory)
        ? OK
        : refuse('outside_prefix', `must be under ${constraint.directory}`);
    }
    case 'max':
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        return refuse('wrong_type', 'must be a number');
      }
      return value <= constraint.max
        ? OK
        : refuse('above_max', `must be at most ${constraint.max}`);
    case 'subsetOf': {
      if (!Array.isArray(value)) return refuse('wrong_type', 'must be a list');
      const items = value as unknown[];
      const stray = items.findIndex((item) => !constraint.values.some((v) => v === item));
      return stray < 0
        ? OK
        : refuse(
            'not_subset',
            `holds ${quoteValue(items[stray])}, not among ${quoteValue(constraint.values)}`,
          );
    }
  }
}

/**
 * G2: whether `edited` is an allowed edit of `original`: within the constraint and, where the
 * form has an order, no wider than what was asked for (a path stays under the original one, a
 * number does not grow, a list keeps only items it had). Forms without an order (`enum`,
 * `pattern`) narrow to whatever the policy lists, so for them this is `checkConstraint`.
 */
export function narrows(
  constraint: ArgumentConstraint,
  original: unknown,
  edited: unknown,
): ConstraintCheck {
  const within = checkConstraint(constraint, edited);
  if (!within.ok) return within;
  switch (constraint.kind) {
    case 'enum':
    case 'pattern':
      return OK;
    case 'prefix': {
      const from = typeof original === 'string' ? normalisedPath(original) : undefined;
      // An original the tool could not take as a path leaves the policy's directory as the bound.
      if (typeof from !== 'string') return OK;
      return isAtOrUnder(normalisedPath(edited as string) as string, from)
        ? OK
        : refuse('widens', `must stay under the requested ${from}`);
    }
    case 'max':
      return typeof original !== 'number' || (edited as number) <= original
        ? OK
        : refuse('widens', `must not exceed the requested ${original}`);
    case 'subsetOf': {
      if (!Array.isArray(original)) return OK;
      const items = edited as unknown[];
      const added = items.findIndex((item) => !original.some((o) => o === item));
      return added < 0
        ? OK
        : refuse('widens', `adds ${quoteValue(items[added])}, which was not requested`);
    }
  }
}

/** A short phrase for a button or a list: "under /srv/notes", "at most 10". */
export function describeConstraint(constraint: ArgumentConstraint): string {
  switch (constraint.kind) {
    case 'enum':
      return `one of ${constraint.values.join(', ')}`;
    case 'pattern':
      return `matching ${constraint.source}`;
    case 'prefix':
      return `under ${constraint.directory}`;
    case 'max':
      return `at most ${constraint.max}`;
    case 'subsetOf':
      return `within ${constraint.values.join(', ')}`;
  }
}

/**
 * The lexical normal form of an absolute POSIX path (`.` and repeated `/` dropped, no trailing
 * `/`), or why it is refused. `..` is refused rather than resolved: through a symbolic link the
 * kernel resolves it physically, so `/srv/notes/link/../x` may be anywhere. Backslashes, control
 * characters and percent-encoded dots or separators are refused too, for a tool that treats them
 * as separators or decodes them.
 */
export function normalisedPath(value: string): string | { problem: string } {
  if (value.length === 0 || value.length > MAX_PATH_LENGTH) {
    return { problem: `must be 1 to ${MAX_PATH_LENGTH} characters` };
  }
  if (!value.startsWith('/')) return { problem: 'must be an absolute path' };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(value)) {
    return { problem: 'must hold no backslash or control character' };
  }
  if (/%(2e|2f|5c|00)/i.test(value)) return { problem: 'must hold no percent-encoded . / or \\' };
  const segments = value.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) return { problem: 'must hold no .. segment' };
  return `/${segments.join('/')}`;
}

function isAtOrUnder(path: string, directory: string): boolean {
  return directory === '/' || path === directory || path.startsWith(`${directory}/`);
}

function scalarList(value: unknown): readonly ScalarValue[] | string {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_CONSTRAINT_VALUES) {
    return `must be a list of 1 to ${MAX_CONSTRAINT_VALUES} values`;
  }
  const bad = (value as unknown[]).find(
    (v) =>
      !(
        typeof v === 'string' ||
        typeof v === 'boolean' ||
        (typeof v === 'number' && Number.isFinite(v))
      ),
  );
  if (bad !== undefined)
    return `must hold only strings, numbers or booleans, not ${quoteValue(bad)}`;
  return value as ScalarValue[];
}

const OK: ConstraintCheck = { ok: true };

function refuse(reason: ConstraintRefusal, detail: string): ConstraintCheck {
  return { ok: false, reason, detail };
}

function problem(text: string): ConstraintParse {
  return { ok: false, problem: text };
}
