import { randomInt } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** `apr_` + 26 random [0-9a-z] (≈ 134 bits): unguessable, and a safe NATS subject token. */
export function newApprovalId(): string {
  let id = 'apr_';
  for (let i = 0; i < 26; i += 1) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}
