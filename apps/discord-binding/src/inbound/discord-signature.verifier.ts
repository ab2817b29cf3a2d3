import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { SIGNATURE_WINDOW_SECONDS, type SignatureVerdict } from '@tollgate/binding-core';

/** DER SubjectPublicKeyInfo header of an Ed25519 key; the 32 raw key bytes follow it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The key Discord's developer portal shows as 64 hex characters. */
export function discordPublicKey(hex: string): KeyObject {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error('an Ed25519 public key is 64 hex characters');
  return createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex, 'hex')]),
    format: 'der',
    type: 'spki',
  });
}

/**
 * Discord's interaction signing: Ed25519 over `<timestamp><raw body>`. The raw body is used as
 * received: a re-serialized JSON body would not match.
 */
export function verifyDiscordSignature(
  publicKey: KeyObject,
  rawBody: Buffer | undefined,
  timestampHeader: string | undefined,
  signatureHeader: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
): SignatureVerdict {
  if (!rawBody) return { ok: false, reason: 'missing_body' };
  if (!timestampHeader || !/^\d+$/.test(timestampHeader)) {
    return { ok: false, reason: 'missing_timestamp' };
  }
  if (!signatureHeader || !/^[0-9a-fA-F]{128}$/.test(signatureHeader)) {
    return { ok: false, reason: 'missing_signature' };
  }
  if (Math.abs(nowSeconds - Number(timestampHeader)) > SIGNATURE_WINDOW_SECONDS) {
    return { ok: false, reason: 'stale_timestamp' };
  }
  const signed = Buffer.concat([Buffer.from(timestampHeader), rawBody]);
  const valid = verify(null, signed, publicKey, Buffer.from(signatureHeader, 'hex'));
  return valid ? { ok: true } : { ok: false, reason: 'bad_signature' };
}
