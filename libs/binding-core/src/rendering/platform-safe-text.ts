/**
 * Free text from the model or a person may hold any Unicode (docs/protocol.md §1.2), but not
 * every platform can carry all of it: Slack's form encoding throws on an unpaired surrogate
 * and glues any surrogate to the code unit after it (`"\udc00\ud800"` went out as U+10000),
 * Mattermost's PostgreSQL refuses U+0000, and no chat client shows either. Each such code unit
 * becomes U+FFFD in its own place, so nothing is swallowed and nothing merges with its
 * neighbour; everything else, surrogate pairs included, is sent as it is.
 */
// With the `u` flag `\p{Cs}` matches only a surrogate that is not half of a pair.
// eslint-disable-next-line no-control-regex
const UNSENDABLE = /[\u0000\p{Cs}]/gu;

export const REPLACEMENT_CHARACTER = '\ufffd';

export function platformSafeText(text: string): string {
  return text.replace(UNSENDABLE, REPLACEMENT_CHARACTER);
}

/**
 * Every string in a request body made safe, keys included: applied to the body as it leaves,
 * after every renderer and truncation, so a cut that split a surrogate pair is caught too.
 */
export function platformSafe<T>(value: T): T {
  return safeValue(value) as T;
}

function safeValue(value: unknown): unknown {
  if (typeof value === 'string') return platformSafeText(value);
  if (Array.isArray(value)) return value.map(safeValue);
  if (typeof value !== 'object' || value === null) return value;
  const prototype: unknown = Object.getPrototypeOf(value);
  // Only plain data is rewritten; anything else (a Buffer, a Date) is sent as it is.
  if (prototype !== Object.prototype && prototype !== null) return value;
  // fromEntries defines own properties, so even a `__proto__` key stays a key.
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => [platformSafeText(key), safeValue(entry)]),
  );
}
