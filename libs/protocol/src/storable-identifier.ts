import { z } from 'zod';

// With the `u` flag `\p{Cs}` matches only a surrogate that is not half of a pair.
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/**
 * Identifiers (ids, call ids, user ids, conversation ids, option keys) are stored in PostgreSQL
 * `text` columns and compared byte for byte. PostgreSQL refuses U+0000 there and turns an
 * unpaired surrogate into U+FFFD, so two different ids would meet as one. No platform issues
 * such ids, so they are refused at the protocol boundary (`invalid_payload`, dead-lettered
 * once); free text (message text, display names, tool output) is escaped by the journals
 * instead, because its meaning matters.
 */
export function storableIdentifier(): z.ZodString {
  return z.string().refine(isStorableIdentifier, {
    message: 'must not contain U+0000 or an unpaired surrogate',
  });
}

/** The same rule outside a schema: for identifiers read before a message is built. */
export function isStorableIdentifier(value: string): boolean {
  return !UNSTORABLE.test(value);
}
