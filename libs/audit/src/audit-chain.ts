import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';
import type { AuditDraft, ChainedFields } from './audit-entry';

/** The `prev_hash` of a day's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** `YYYY-MM-DD` (UTC) of an ISO instant. */
export function dayOf(at: string): string {
  return at.slice(0, 10);
}

/** An instant in the one form that is hashed, whatever form the journal gave it in. */
export function normalizeInstant(at: string): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) throw new Error(`not an instant: ${at}`);
  return date.toISOString();
}

/**
 * SHA-256 (hex) over the RFC 8785 canonical JSON of everything in an entry but its hash and
 * its seq: key order and number spelling cannot change it, and the jsonb round trip of
 * `who` and `detail` reads back the same text.
 */
export function entryHash(fields: ChainedFields): string {
  const hashed = {
    day: fields.day,
    n: fields.n,
    at: fields.at,
    kind: fields.kind,
    sessionId: fields.sessionId,
    callId: fields.callId,
    who: fields.who,
    via: fields.via,
    argumentsHash: fields.argumentsHash,
    detail: fields.detail,
    prevHash: fields.prevHash,
  };
  return createHash('sha256').update(canonicalize(hashed)).digest('hex');
}

/** Links drafts of one day onto a head: each gets its position, previous hash and hash. */
export function chain(
  day: string,
  head: { readonly hash: string; readonly count: number },
  drafts: readonly AuditDraft[],
): (ChainedFields & { readonly hash: string })[] {
  let prevHash = head.hash;
  return drafts.map((draft, i) => {
    const fields: ChainedFields = { ...draft, day, n: head.count + i + 1, prevHash };
    const hash = entryHash(fields);
    prevHash = hash;
    return { ...fields, hash };
  });
}

/**
 * `sha256:` + SHA-256 of a tool call's arguments as canonical JSON (of the raw text when it is
 * not JSON): the form the approval API's `argumentsHash` has, so both compare.
 */
export function argumentsHashOf(argumentsText: string): string {
  let canonical: string;
  try {
    canonical = canonicalize(JSON.parse(argumentsText) as unknown);
  } catch {
    canonical = argumentsText;
  }
  return `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
}
