import { createHash } from 'node:crypto';
import type { PromptKey } from './prompt-state';

/**
 * The opaque reference a prompt's buttons carry. Call ids run to 256 characters and Mattermost
 * action ids allow letters and digits only, so buttons never carry the key itself; 24 hex
 * characters (96 bits) keep collisions out of reach and fit every platform's limit. The
 * newline cannot occur in a session id, so no two keys hash the same text.
 */
export function promptRefOf(key: PromptKey): string {
  return createHash('sha256')
    .update(`${key.sessionId}\n${key.callId}`, 'utf8')
    .digest('hex')
    .slice(0, 24);
}

const PROMPT_REF_PATTERN = /^[A-Za-z0-9]{1,32}$/;

/** Whether a value taken from an inbound request can be a prompt reference at all. */
export function isPromptRef(value: string): boolean {
  return PROMPT_REF_PATTERN.test(value);
}
