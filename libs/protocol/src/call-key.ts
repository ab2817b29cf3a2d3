import { createHash } from 'node:crypto';

const VERBATIM_CALL_KEY = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The subject token for a call (docs/protocol.md §1). Model-given call ids may hold dots, spaces,
 * wildcards or any length, none of which a NATS subject token can carry, so those are hashed.
 * The mapping is one-way on purpose: the payload's `callId` is the only source of a call id.
 * Total over all strings, including ones the message schemas refuse.
 */
export function callKeyOf(callId: string): string {
  if (VERBATIM_CALL_KEY.test(callId)) {
    return callId;
  }
  const digest = createHash('sha256').update(callId, 'utf8').digest('hex');
  return `h-${digest.slice(0, 40)}`;
}
