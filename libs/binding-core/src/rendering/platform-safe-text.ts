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
// The same set without `g`, to ask whether a text holds any (test() with `g` keeps a position).
// eslint-disable-next-line no-control-regex
const HAS_UNSENDABLE = /[\u0000\p{Cs}]/u;

export const REPLACEMENT_CHARACTER = '\ufffd';

export function platformSafeText(text: string): string {
  return HAS_UNSENDABLE.test(text) ? text.replace(UNSENDABLE, REPLACEMENT_CHARACTER) : text;
}

/**
 * Every string in a request body made safe, keys included: applied to the body as it leaves,
 * after every renderer and truncation, so a cut that split a surrogate pair is caught too.
 * Copy on change: a body with nothing to replace (nearly every one) comes back as it is,
 * where rebuilding every object and array of every body was a measurable share of a
 * binding's CPU per output (D6).
 */
export function platformSafe<T>(value: T): T {
  return safeValue(value) as T;
}

function safeValue(value: unknown): unknown {
  if (typeof value === 'string') return platformSafeText(value);
  if (Array.isArray(value)) return safeArray(value);
  if (typeof value !== 'object' || value === null) return value;
  const prototype: unknown = Object.getPrototypeOf(value);
  // Only plain data is rewritten; anything else (a Buffer, a Date) is sent as it is.
  if (prototype !== Object.prototype && prototype !== null) return value;
  const entries = Object.entries(value);
  let changed = false;
  const safe = entries.map(([key, entry]): [string, unknown] => {
    const safeKey = platformSafeText(key);
    const safeEntry = safeValue(entry);
    if (safeKey !== key || safeEntry !== entry) changed = true;
    return [safeKey, safeEntry];
  });
  // fromEntries defines own properties, so even a `__proto__` key stays a key.
  return changed ? Object.fromEntries(safe) : value;
}

function safeArray(values: readonly unknown[]): readonly unknown[] {
  let copy: unknown[] | undefined;
  for (let i = 0; i < values.length; i += 1) {
    const safe = safeValue(values[i]);
    if (safe !== values[i] && copy === undefined) copy = values.slice(0, i);
    copy?.push(safe);
  }
  return copy ?? values;
}
