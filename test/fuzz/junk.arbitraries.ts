import fc from 'fast-check';

/**
 * Values a hostile or broken sender puts where a platform's payload has something sensible:
 * wrong types, arrays where objects belong, strings PostgreSQL or a header cannot hold,
 * huge strings, and keys that pollute prototypes when merged carelessly.
 */

/** Own `__proto__` / `constructor` keys, as JSON.parse makes them (a literal would not). */
const POLLUTERS: readonly unknown[] = [
  JSON.parse('{"__proto__":{"polluted":"yes","type":"block_actions"}}'),
  JSON.parse('{"constructor":{"prototype":{"polluted":"yes"}}}'),
  JSON.parse('{"__proto__":[],"length":3}'),
  JSON.parse('{"prototype":null,"toString":"x","valueOf":1,"hasOwnProperty":"no"}'),
];

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '\uffff\ufffe',
    '__proto__',
    'constructor',
    'toString',
    'tollgate:approve_once',
    'tg:approve_once:0123456789abcdef01234567',
    '<!channel> @here @everyone',
    '../../../etc/passwd',
    '%00%zz',
    '\r\nX-Injected: 1',
    '1e309',
    '-0',
  ),
  fc.integer({ min: 1_000, max: 120_000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 100, max: 5_000 }).map((n) => '\u0000\ud800'.repeat(n)),
);

export const junkValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nastyString,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant({}),
    fc.constant([]),
    fc.constantFrom(...POLLUTERS),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(nastyString, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** One change to a valid payload: a field replaced with junk, or dropped. */
export interface Mutation {
  readonly at: number;
  readonly drop: boolean;
  readonly value: unknown;
}

export const mutations: fc.Arbitrary<Mutation[]> = fc.array(
  fc.record({ at: fc.nat(), drop: fc.boolean(), value: junkValue }),
  { minLength: 1, maxLength: 4 },
);

/**
 * A copy of `template` with each mutation applied at one of its paths (objects and array
 * elements alike, the root included, so the whole body can become an array or a string).
 */
export function mutate(template: unknown, changes: readonly Mutation[]): unknown {
  let result: unknown = copyOf(template);
  for (const change of changes) {
    const paths = pathsOf(result);
    const path = paths[change.at % paths.length];
    if (path.length === 0) {
      result = copyOf(change.value);
      continue;
    }
    const parent = path.slice(0, -1).reduce<unknown>((node, key) => descend(node, key), result);
    const key = path[path.length - 1];
    if (typeof parent !== 'object' || parent === null) continue;
    if (change.drop && !Array.isArray(parent)) {
      delete (parent as Record<string, unknown>)[key];
    } else {
      // A copy: generated values (the polluters, `{}`) are shared between cases.
      Object.defineProperty(parent, key, {
        value: copyOf(change.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return result;
}

/**
 * A deep copy of plain JSON-like data as structuredClone makes one (own `__proto__` keys stay
 * own data properties; an object reached twice, like the shared `text` of a Slack button, is
 * copied once and stays shared) but sharing strings, which are immutable: structuredClone
 * copied every junk string of up to 120 000 characters.
 */
function copyOf(value: unknown, copies = new Map<object, unknown>()): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const known = copies.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    copies.set(value, copy);
    for (const item of value) copy.push(copyOf(item, copies));
    return copy;
  }
  const copy: Record<string, unknown> = {};
  copies.set(value, copy);
  for (const key of Object.keys(value)) {
    Object.defineProperty(copy, key, {
      value: copyOf((value as Record<string, unknown>)[key], copies),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

function pathsOf(node: unknown, prefix: string[] = [], into: string[][] = []): string[][] {
  into.push(prefix);
  if (typeof node === 'object' && node !== null && into.length < 200) {
    for (const key of Object.keys(node)) {
      pathsOf((node as Record<string, unknown>)[key], [...prefix, key], into);
    }
  }
  return into;
}

function descend(node: unknown, key: string): unknown {
  return typeof node === 'object' && node !== null
    ? (node as Record<string, unknown>)[key]
    : undefined;
}

/**
 * Encodes a value as a form the way qs reads one back (`a[b][0]=v`), so nested junk reaches
 * the server as objects and arrays inside what should be flat fields.
 */
export function formEncode(value: unknown): string {
  const pairs: string[] = [];
  const walk = (node: unknown, name: string): void => {
    if (typeof node === 'object' && node !== null) {
      const entries = Object.entries(node);
      if (entries.length === 0) pairs.push(`${encodeURIComponent(safeText(name))}=`);
      for (const [key, child] of entries) walk(child, name === '' ? key : `${name}[${key}]`);
      return;
    }
    pairs.push(
      `${encodeURIComponent(safeText(name))}=${encodeURIComponent(safeText(String(node)))}`,
    );
  };
  walk(value, '');
  return pairs.join('&');
}

/** encodeURIComponent throws on a lone surrogate; a real sender's bytes would be WTF-8 junk. */
export function safeText(text: string): string {
  return text.replace(/[\ud800-\udfff]/g, (unit) => `%${unit.charCodeAt(0).toString(16)}`);
}

/** Raw form bodies a parser has to survive: bad escapes, deep brackets, thousands of fields. */
export const rawFormJunk: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary-ascii', maxLength: 200 }),
  fc.constantFrom(
    '%',
    '%zz=%',
    '=&=&&==',
    'a[b][c][d][e][f][g][h][i][j][k][l][m][n][o][p][q][r][s][t][u][v][w][x][y][z][0][1][2][3][4][5][6][7][8]=1',
    '__proto__[polluted]=yes&constructor[prototype][polluted]=yes',
    'payload[]=1&payload[]=2',
    'payload[__proto__][type]=block_actions',
  ),
  fc
    .integer({ min: 1_001, max: 3_000 })
    .map((n) => Array.from({ length: n }, (_, i) => `f${i}=1`).join('&')),
);
