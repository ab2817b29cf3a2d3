/**
 * A policy's `pattern` constraint, compiled so that no argument a model sends can make it
 * backtrack for long (ReDoS). JavaScript's engine backtracks, so the pattern is refused at parse
 * unless its worst case is small for a value of at most MAX_PATTERN_SUBJECT characters:
 * - at most MAX_PATTERN_LENGTH characters;
 * - no backreference or lookaround (they defeat any bound below);
 * - no repeated group that itself repeats or alternates (`(a+)+`, `(a|a)*`: exponential);
 * - the product of the repeat counts (an unbounded one counts as the value's length) at most
 *   MAX_BACKTRACK_ESTIMATE, which bounds the polynomial blow-up of adjacent overlapping repeats
 *   such as `.*.*.*x`. Two unbounded repeats pass; three do not.
 * The pattern must match the whole value: it is anchored for the author.
 */
export const MAX_PATTERN_LENGTH = 200;
/** Values checked against a pattern; longer ones are refused before the regex runs. */
export const MAX_PATTERN_SUBJECT = 1_024;
export const MAX_BACKTRACK_ESTIMATE = 2 ** 21;

export type PatternCompile =
  { readonly ok: true; readonly regex: RegExp } | { readonly ok: false; readonly problem: string };

interface Frame {
  repeats: boolean;
  alternates: boolean;
}

export function checkedPattern(source: string): PatternCompile {
  if (source.length === 0 || source.length > MAX_PATTERN_LENGTH) {
    return refuse(`must be 1 to ${MAX_PATTERN_LENGTH} characters`);
  }
  let regex: RegExp;
  try {
    regex = new RegExp(`^(?:${source})$`, 'u');
  } catch (error) {
    return refuse(`is not a valid regular expression (${(error as Error).message})`);
  }
  const shape = shapeProblem(source);
  return shape === undefined ? { ok: true, regex } : refuse(shape);
}

/** Walks the (already valid, `u`-mode) source once, atom by atom. */
function shapeProblem(source: string): string | undefined {
  const frames: Frame[] = [{ repeats: false, alternates: false }];
  let estimate = 1;
  let i = 0;
  // What the next quantifier applies to: a plain atom, or the frame of a group just closed.
  let lastAtom: 'none' | 'atom' | Frame = 'none';
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1];
      if (/[1-9]/.test(next) || next === 'k') return 'must hold no backreference';
      i += 2;
      if ((next === 'p' || next === 'P' || next === 'u') && source[i] === '{') {
        i = source.indexOf('}', i) + 1;
      } else if (next === 'u') {
        i += 4;
      } else if (next === 'x') {
        i += 2;
      } else if (next === 'c') {
        i += 1;
      }
      lastAtom = 'atom';
      continue;
    }
    if (c === '[') {
      i = classEnd(source, i + 1);
      lastAtom = 'atom';
      continue;
    }
    if (c === '(') {
      if (/^\(\?<?[=!]/.test(source.slice(i, i + 4))) return 'must hold no lookahead or lookbehind';
      frames.push({ repeats: false, alternates: false });
      i += source.startsWith('(?<', i)
        ? source.indexOf('>', i) + 1 - i
        : source[i + 1] === '?'
          ? 3
          : 1;
      lastAtom = 'none';
      continue;
    }
    if (c === ')') {
      const closed = frames.pop()!;
      const parent = frames[frames.length - 1];
      parent.repeats ||= closed.repeats;
      parent.alternates ||= closed.alternates;
      lastAtom = closed;
      i += 1;
      continue;
    }
    if (c === '|') {
      frames[frames.length - 1].alternates = true;
      lastAtom = 'none';
      i += 1;
      continue;
    }
    const quantifier = quantifierAt(source, i);
    if (quantifier !== undefined) {
      i = quantifier.end;
      if (quantifier.max > 1) {
        if (typeof lastAtom === 'object' && (lastAtom.repeats || lastAtom.alternates)) {
          return 'must not repeat a group that itself repeats or alternates, as in (a+)+ or (a|b)*';
        }
        estimate *= Math.min(quantifier.max, MAX_PATTERN_SUBJECT);
        if (estimate > MAX_BACKTRACK_ESTIMATE) {
          return 'repeats too much to be checked quickly: use at most two unbounded repeats (* + {n,}) or bound them';
        }
        frames[frames.length - 1].repeats = true;
      }
      lastAtom = 'none';
      continue;
    }
    lastAtom = 'atom';
    i += 1;
  }
  return undefined;
}

function classEnd(source: string, from: number): number {
  let i = from;
  if (source[i] === ']') i += 1;
  while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
  return i + 1;
}

function quantifierAt(source: string, i: number): { max: number; end: number } | undefined {
  const c = source[i];
  let max: number;
  let end: number;
  if (c === '*' || c === '+') {
    max = Infinity;
    end = i + 1;
  } else if (c === '?') {
    max = 1;
    end = i + 1;
  } else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
    if (m === null) return undefined;
    max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
    end = i + m[0].length;
  } else {
    return undefined;
  }
  if (source[end] === '?') end += 1;
  return { max, end };
}

function refuse(problem: string): PatternCompile {
  return { ok: false, problem };
}
