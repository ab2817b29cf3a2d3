/**
 * PostgreSQL refuses two things any JavaScript string may hold: U+0000 (jsonb rejects the
 * `\u0000` escape with 22P05, text the 0x00 byte with 22021) and unpaired UTF-16 surrogates
 * (jsonb rejects `\ud800` with 22P02; text silently turns them into U+FFFD). Chat text, model
 * output and tool arguments carry both, and their meaning must survive the journal.
 *
 * The escaping rule (the protocol's "journal text escaping"):
 * - A value with neither is stored as plain JSON, byte for byte as before, and read back as is.
 * - Otherwise every string in it (object keys included) is rewritten: `%` → `%25`,
 *   U+0000 → `%00`, an unpaired surrogate → `%u` + its 4 upper-case hex digits (`%uD800`);
 *   a well-formed surrogate pair is kept. The stored object is marked `"$escaped": 1`; a value
 *   that is not an object, or is one with its own `$escaped` key, is stored wrapped as
 *   `{"$escaped": 2, "value": …}`.
 * - Reading reverses it exactly, only for marked values, so unmarked rows written before the
 *   rule existed read back unchanged. The round trip is lossless for every JSON value.
 */

export const ESCAPED_MARKER = '$escaped';
const ESCAPED_OBJECT = 1;
const ESCAPED_WRAPPED = 2;

// An unpaired surrogate or U+0000; with the `u` flag a lone surrogate matches on its own.
// eslint-disable-next-line no-control-regex
const REFUSED = /[\u0000\p{Cs}]/u;
// eslint-disable-next-line no-control-regex
const TO_ESCAPE = /[%\u0000\p{Cs}]/gu;
const ESCAPED = /%(25|00|u[0-9A-F]{4})/g;

// In JSON.stringify's output, U+0000 appears only as `\u0000` and an unpaired surrogate only
// as `\udxxx`; text without either (a literal backslash before them only costs the walk)
// holds nothing PostgreSQL refuses.
const MAYBE_REFUSED = /\\u(?:0000|d[89a-f])/i;

/** JSON text for a jsonb (or json) parameter that PostgreSQL always accepts. */
export function toJsonbText(value: unknown): string {
  // Nearly every value needs no escaping: one native stringify and a scan of its text
  // instead of walking every key and string (4 % of a restart's CPU in a profile).
  const text = JSON.stringify(value);
  if (!holdsMarker(value) && (text === undefined || !MAYBE_REFUSED.test(text))) return text;
  return JSON.stringify(toJsonbValue(value));
}

/**
 * One jsonb parameter holding `values` as an array, for `jsonb_array_elements($n::jsonb)
 * WITH ORDINALITY` beside the other columns' `unnest(…) WITH ORDINALITY`. node-postgres
 * escapes every quote of every element of an array parameter (a jsonb[]) in JavaScript,
 * which cost more CPU than the rest of the statement; joining texts costs next to nothing.
 */
export function toJsonbArrayText(values: readonly unknown[]): string {
  // An undefined element is JSON's null, as JSON.stringify would write it in an array.
  return jsonArrayText(values.map((value) => toJsonbText(value) ?? 'null'));
}

/** One json array of texts that are JSON already, each kept as written (for a json parameter). */
export function jsonArrayText(texts: readonly string[]): string {
  return `[${texts.join(',')}]`;
}

/** The value to store: `value` itself when nothing in it needs escaping. */
export function toJsonbValue(value: unknown): unknown {
  const root = isPlainObject(value);
  const collides = holdsMarker(value);
  if (!collides && !containsRefused(value)) return value;
  const escaped = mapStrings(value, escapeString);
  if (root && !collides) return { [ESCAPED_MARKER]: ESCAPED_OBJECT, ...(escaped as object) };
  return { [ESCAPED_MARKER]: ESCAPED_WRAPPED, value: escaped };
}

/** Reverses {@link toJsonbValue} on what node-postgres parsed from a jsonb column. */
export function fromJsonbValue<T = unknown>(stored: unknown): T {
  if (!isPlainObject(stored)) return stored as T;
  const marker = stored[ESCAPED_MARKER];
  if (marker === ESCAPED_WRAPPED) return mapStrings(stored.value, unescapeString) as T;
  if (marker !== ESCAPED_OBJECT) return stored as T;
  const rest: Record<string, unknown> = { ...stored };
  delete rest[ESCAPED_MARKER];
  return mapStrings(rest, unescapeString) as T;
}

/** True when the string holds something PostgreSQL refuses in text or jsonb. */
export function holdsRefusedCharacters(text: string): boolean {
  return REFUSED.test(text);
}

function containsRefused(value: unknown): boolean {
  if (typeof value === 'string') return REFUSED.test(value);
  if (Array.isArray(value)) return value.some(containsRefused);
  if (isPlainObject(value)) {
    return Object.entries(value).some(([key, item]) => REFUSED.test(key) || containsRefused(item));
  }
  return false;
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (isPlainObject(value)) {
    // Defined, not assigned: assigning a `__proto__` key (which JSON.parse makes an own
    // property) would set the prototype and lose the key (X16).
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [map(key), mapStrings(item, map)]),
    );
  }
  return value;
}

function escapeString(text: string): string {
  return text.replace(TO_ESCAPE, (ch) => {
    if (ch === '%') return '%25';
    if (ch === '\u0000') return '%00';
    return `%u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  });
}

function unescapeString(text: string): string {
  return text.replace(ESCAPED, (_match, code: string) => {
    if (code === '25') return '%';
    if (code === '00') return '\u0000';
    return String.fromCharCode(parseInt(code.slice(1), 16));
  });
}

/** An object whose own marker key must not be read as ours: it is stored wrapped. */
function holdsMarker(value: unknown): boolean {
  return isPlainObject(value) && Object.prototype.hasOwnProperty.call(value, ESCAPED_MARKER);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
