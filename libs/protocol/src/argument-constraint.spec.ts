import { posix } from 'node:path';
import fc from 'fast-check';
import {
  type ArgumentConstraint,
  checkConstraint,
  constraintToJson,
  describeConstraint,
  narrows,
  normalisedPath,
  parseArgumentConstraint,
} from './argument-constraint';
import { checkArguments, describeScope, parseArgumentScope, scopeToJson } from './argument-scope';
import { MAX_PATTERN_SUBJECT } from './safe-pattern';

function parsed(raw: unknown): ArgumentConstraint {
  const result = parseArgumentConstraint(raw);
  if (!result.ok) throw new Error(result.problem);
  return result.constraint;
}

function problemOf(raw: unknown): string {
  const result = parseArgumentConstraint(raw);
  if (result.ok) throw new Error(`accepted ${JSON.stringify(raw)}`);
  return result.problem;
}

describe('argument constraints', () => {
  it('G3 parses each form and writes it back as the policy wrote it', () => {
    const forms = [
      { enum: ['read', 'append', 3, true] },
      { pattern: '[a-z]+\\.md' },
      { prefix: '/srv/notes' },
      { max: 10 },
      { subsetOf: ['red', 'green'] },
    ];
    for (const raw of forms) expect(constraintToJson(parsed(raw))).toEqual(raw);
    expect(describeConstraint(parsed({ prefix: '/srv/notes' }))).toBe('under /srv/notes');
  });

  it.each([
    [null, /must be a map/],
    [{}, /exactly one of enum, pattern, prefix, max, subsetOf/],
    [{ prefix: '/a', max: 1 }, /exactly one of/],
    [{ regex: 'a' }, /exactly one of .* not \["regex"\]/],
    [{ enum: [] }, /enum must be a list of 1 to 100/],
    [{ enum: [{ a: 1 }] }, /only strings, numbers or booleans/],
    [{ subsetOf: 'a' }, /subsetOf must be a list/],
    [{ max: '10' }, /max must be a finite number/],
    [{ prefix: 'srv/notes' }, /prefix must be an absolute, normalised directory/],
    [{ prefix: '/srv/../etc' }, /normalised directory/],
    [{ prefix: '/srv//notes' }, /normalised directory/],
    [{ pattern: '(' }, /pattern is not a valid regular expression/],
    [{ pattern: 'a'.repeat(201) }, /pattern must be 1 to 200 characters/],
  ])('G3 refuses %j with a clear problem', (raw, expected) => {
    expect(problemOf(raw)).toMatch(expected);
  });

  it.each([
    ['(a+)+b', /must not repeat a group that itself repeats/],
    ['(a|aa)*b', /must not repeat a group that itself repeats or alternates/],
    ['((ab)c+){2,}', /must not repeat a group/],
    ['.*.*.*x', /repeats too much/],
    ['[a-z]{1,1000}[a-z]{1,1000}[a-z]{1,1000}', /repeats too much/],
    ['(a)\\1', /backreference/],
    ['(?<n>a)\\k<n>', /backreference/],
    ['(?=a)a', /lookahead or lookbehind/],
    ['(?<!a)b', /lookahead or lookbehind/],
  ])('G3 refuses the backtracking pattern %s at parse', (pattern, expected) => {
    expect(problemOf({ pattern })).toMatch(expected);
  });

  it.each([
    '[a-z0-9-]{1,40}\\.md',
    '/srv/[^/]+/[^/]+\\.txt',
    '(?:draft|final)-\\d{1,4}',
    '\\p{L}+',
  ])('G3 takes the everyday pattern %s', (pattern) => {
    expect(parseArgumentConstraint({ pattern }).ok).toBe(true);
  });

  it('G3 anchors a pattern: it must match the whole value', () => {
    const md = parsed({ pattern: '[a-z]+\\.md' });
    expect(checkConstraint(md, 'notes.md')).toEqual({ ok: true });
    expect(checkConstraint(md, 'x/notes.md')).toMatchObject({ reason: 'pattern_mismatch' });
    expect(checkConstraint(md, 'notes.md.exe')).toMatchObject({ reason: 'pattern_mismatch' });
    expect(checkConstraint(parsed({ pattern: 'a|b' }), 'ab')).toMatchObject({ ok: false });
    expect(checkConstraint(md, 7)).toMatchObject({ reason: 'wrong_type' });
    expect(checkConstraint(md, `${'a'.repeat(MAX_PATTERN_SUBJECT)}.md`)).toMatchObject({
      reason: 'too_long',
    });
  });

  it('G3 checks enum, max and subsetOf by value and type', () => {
    expect(checkConstraint(parsed({ enum: ['a', 1] }), 1)).toEqual({ ok: true });
    expect(checkConstraint(parsed({ enum: ['a', 1] }), '1')).toMatchObject({
      reason: 'not_in_enum',
    });
    expect(checkConstraint(parsed({ max: 10 }), 10)).toEqual({ ok: true });
    expect(checkConstraint(parsed({ max: 10 }), 10.5)).toMatchObject({ reason: 'above_max' });
    expect(checkConstraint(parsed({ max: 10 }), '5')).toMatchObject({ reason: 'wrong_type' });
    const colours = parsed({ subsetOf: ['red', 'green', 'blue'] });
    expect(checkConstraint(colours, [])).toEqual({ ok: true });
    expect(checkConstraint(colours, ['red', 'blue'])).toEqual({ ok: true });
    expect(checkConstraint(colours, ['red', 'pink'])).toMatchObject({ reason: 'not_subset' });
    expect(checkConstraint(colours, 'red')).toMatchObject({ reason: 'wrong_type' });
  });

  it.each([
    ['/srv/notes', true],
    ['/srv/notes/', true],
    ['/srv/notes/a.md', true],
    ['/srv/notes/./deep//b.md', true],
    ['/srv/notes-evil/a.md', false],
    ['/srv/note', false],
    ['/srv/notes/../etc/passwd', false],
    ['/srv/notes/sub/../a.md', false],
    ['srv/notes/a.md', false],
    ['notes/a.md', false],
    ['/srv/notes\\..\\..\\etc', false],
    ['/srv/notes/%2e%2e/etc', false],
    ['/srv/notes/a\u0000.md', false],
    ['', false],
  ])('G3 prefix /srv/notes: %j covered = %s', (path, covered) => {
    expect(checkConstraint(parsed({ prefix: '/srv/notes' }), path).ok).toBe(covered);
  });

  it('G3 a root prefix covers any absolute path, still without ..', () => {
    const root = parsed({ prefix: '/' });
    expect(checkConstraint(root, '/etc/passwd').ok).toBe(true);
    expect(checkConstraint(root, '/a/../b').ok).toBe(false);
  });

  const segment = fc.oneof(
    fc.constantFrom('..', '.', '', 'notes', 'notes-evil', 'a.md', '%2e%2e', '..\\', '...'),
    fc.string({ minLength: 1, maxLength: 6 }),
  );
  const anyPath = fc
    .tuple(fc.boolean(), fc.array(segment, { maxLength: 8 }))
    .map(([absolute, parts]) => `${absolute ? '/' : ''}${parts.join('/')}`);
  const directory = fc
    .array(fc.constantFrom('srv', 'notes', 'a', 'b'), { minLength: 0, maxLength: 3 })
    .map((parts) => `/${parts.join('/')}`);

  // Often starting with the directory itself, so that escapes from inside it come up.
  const pathAgainst = (dir: string): fc.Arbitrary<string> =>
    fc.oneof(
      anyPath,
      anyPath.map((tail) => `${dir}/${tail}`),
    );

  it('G3 prefix: whatever it covers resolves under the directory, even through ..', () => {
    fc.assert(
      fc.property(
        directory.chain((dir) => fc.tuple(fc.constant(dir), pathAgainst(dir))),
        ([dir, path]) => {
          if (!checkConstraint(parsed({ prefix: dir }), path).ok) return;
          const resolved = posix.resolve(path);
          expect(resolved === dir || resolved.startsWith(dir === '/' ? '/' : `${dir}/`)).toBe(true);
          expect(path.split('/')).not.toContain('..');
          expect(path.includes('\\') || path.includes('\u0000')).toBe(false);
        },
      ),
    );
  });

  it('G3 prefix: every path the directory lexically holds, written plainly, is covered', () => {
    fc.assert(
      fc.property(
        directory,
        fc.array(fc.stringMatching(/^[A-Za-z0-9_ .-]{1,8}$/), { maxLength: 5 }),
        (dir, tail) => {
          const parts = tail.filter((t) => t !== '.' && t !== '..');
          const path = [dir === '/' ? '' : dir, ...parts].join('/') || '/';
          expect(checkConstraint(parsed({ prefix: dir }), path).ok).toBe(true);
        },
      ),
    );
  });

  it('G3 normalisedPath drops . and repeated / and keeps the rest verbatim', () => {
    expect(normalisedPath('/srv//notes/./a.md/')).toBe('/srv/notes/a.md');
    expect(normalisedPath('/')).toBe('/');
    expect(normalisedPath('/a/../b')).toEqual({ problem: 'must hold no .. segment' });
  });

  it('G2 narrows: a path stays under the requested one and the policy directory', () => {
    const under = parsed({ prefix: '/srv' });
    expect(narrows(under, '/srv/a', '/srv/a/tmp')).toEqual({ ok: true });
    expect(narrows(under, '/srv/a', '/srv/a')).toEqual({ ok: true });
    expect(narrows(under, '/srv/a', '/srv/b')).toMatchObject({ reason: 'widens' });
    expect(narrows(under, '/srv/a', '/srv')).toMatchObject({ reason: 'widens' });
    expect(narrows(under, '/srv/a', '/etc')).toMatchObject({ reason: 'outside_prefix' });
    expect(narrows(under, '/srv/a', '/srv/a/../b')).toMatchObject({ reason: 'unsafe_path' });
  });

  it('G2 narrows: a number does not grow, a list only loses items, enum and pattern stay within', () => {
    const max = parsed({ max: 100 });
    expect(narrows(max, 50, 10)).toEqual({ ok: true });
    expect(narrows(max, 50, 60)).toMatchObject({ reason: 'widens' });
    expect(narrows(max, 50, 101)).toMatchObject({ reason: 'above_max' });
    const tags = parsed({ subsetOf: ['a', 'b', 'c'] });
    expect(narrows(tags, ['a', 'b'], ['a'])).toEqual({ ok: true });
    expect(narrows(tags, ['a', 'b'], ['a', 'c'])).toMatchObject({ reason: 'widens' });
    expect(narrows(parsed({ enum: ['x', 'y'] }), 'x', 'y')).toEqual({ ok: true });
    expect(narrows(parsed({ enum: ['x', 'y'] }), 'x', 'z')).toMatchObject({
      reason: 'not_in_enum',
    });
    expect(narrows(parsed({ pattern: '\\d+' }), '1', 'a')).toMatchObject({
      reason: 'pattern_mismatch',
    });
  });

  it('G2 narrows: an edit the property accepts is within the constraint and under the original', () => {
    fc.assert(
      fc.property(
        directory.chain((dir) =>
          fc
            .tuple(fc.constant(dir), pathAgainst(dir), pathAgainst(dir))
            .chain(([d, original, edited]) =>
              fc.tuple(
                fc.constant(d),
                fc.constant(original),
                fc.oneof(fc.constant(edited), pathAgainst(original)),
              ),
            ),
        ),
        ([dir, original, edited]) => {
          const constraint = parsed({ prefix: dir });
          if (!narrows(constraint, original, edited).ok) return;
          expect(checkConstraint(constraint, edited).ok).toBe(true);
          const from = normalisedPath(original);
          if (typeof from === 'string') {
            const to = posix.resolve(edited);
            expect(to === from || to.startsWith(from === '/' ? '/' : `${from}/`)).toBe(true);
          }
        },
      ),
    );
  });
});

describe('argument scopes', () => {
  it('G3 a scope covers a call whose named arguments are all within, and names the first that is not', () => {
    const result = parseArgumentScope({ path: { prefix: '/srv/notes' }, mode: { enum: ['a'] } });
    if (!result.ok) throw new Error(result.problem);
    const { scope } = result;
    expect(describeScope(scope)).toBe('path under /srv/notes, mode one of a');
    expect(scopeToJson(scope)).toEqual({ path: { prefix: '/srv/notes' }, mode: { enum: ['a'] } });
    expect(checkArguments(scope, { path: '/srv/notes/x', mode: 'a', other: 1 })).toEqual({
      ok: true,
    });
    expect(checkArguments(scope, { path: '/srv/other', mode: 'a' })).toMatchObject({
      argument: 'path',
      reason: 'outside_prefix',
    });
    expect(checkArguments(scope, { path: '/srv/notes/x' })).toMatchObject({
      argument: 'mode',
      reason: 'missing',
    });
    expect(checkArguments(scope, null)).toMatchObject({ reason: 'missing' });
  });

  it.each([
    [[], /must be a map/],
    [{}, /1 to 16 arguments/],
    [{ path: { prefix: 'rel' } }, /^"path": prefix must be/],
  ])('G3 refuses the scope %j', (raw, expected) => {
    const result = parseArgumentScope(raw);
    expect(result.ok ? 'accepted' : result.problem).toMatch(expected);
  });

  it('G3 an argument named __proto__ is an argument like any other', () => {
    const result = parseArgumentScope(JSON.parse('{"__proto__": {"max": 1}}'));
    if (!result.ok) throw new Error(result.problem);
    expect(checkArguments(result.scope, JSON.parse('{"__proto__": 2}'))).toMatchObject({
      reason: 'above_max',
    });
  });
});
