import { randomBytes } from 'node:crypto';

/** 128 random bits as 32 hex characters (docs/protocol.md §5, the Mattermost nonce). */
export function newPostNonce(): string {
  return randomBytes(16).toString('hex');
}
