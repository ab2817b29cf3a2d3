import { randomBytes } from 'node:crypto';

/** 128 random bits as 32 hex characters (docs/protocol.md §5, the Mattermost nonce). */
export function newPostNonce(): string {
  return randomBytes(16).toString('hex');
}

/** What a post nonce looks like; anything else read back from a platform is not one. */
export const POST_NONCE_PATTERN = /^[0-9a-f]{32}$/;
