import { createHmac, timingSafeEqual } from 'node:crypto';
import { SIGNATURE_WINDOW_SECONDS, type SignatureVerdict } from '@tollgate/binding-core';

/**
 * Slack's request signing: HMAC-SHA256 over `v0:<timestamp>:<raw body>` with the signing
 * secret, compared in constant time. The raw body is used as received: a re-serialized
 * JSON or form body would not match.
 */
export function verifySlackSignature(
  secret: string,
  rawBody: Buffer | undefined,
  timestampHeader: string | undefined,
  signatureHeader: string | undefined,
  nowSeconds = Math.floor(Date.now() / 1000),
): SignatureVerdict {
  if (!rawBody) return { ok: false, reason: 'missing_body' };
  if (!timestampHeader || !/^\d+$/.test(timestampHeader))
    return { ok: false, reason: 'missing_timestamp' };
  if (!signatureHeader?.startsWith('v0=')) return { ok: false, reason: 'missing_signature' };
  if (Math.abs(nowSeconds - Number(timestampHeader)) > SIGNATURE_WINDOW_SECONDS) {
    return { ok: false, reason: 'stale_timestamp' };
  }
  const expected = createHmac('sha256', secret)
    .update(`v0:${timestampHeader}:`)
    .update(rawBody)
    .digest();
  const given = Buffer.from(signatureHeader.slice(3), 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad_signature' };
  }
  return { ok: true };
}
