import { createHmac } from 'node:crypto';

// A type alias, not an interface, so it passes straight into fetch's `headers`.
export type SlackSignatureHeaders = {
  'x-slack-request-timestamp': string;
  'x-slack-signature': string;
};

/**
 * Signs an inbound request the way Slack does (reference §1.6): `v0=` + hex
 * HMAC-SHA256(secret, `v0:<timestamp>:<raw body>`). Sign the exact bytes you send; a body
 * re-encoded after signing no longer verifies.
 */
export function signSlackRequest(
  secret: string,
  rawBody: string | Buffer,
  timestampSec: number = Math.floor(Date.now() / 1000),
): SlackSignatureHeaders {
  const timestamp = String(timestampSec);
  const hmac = createHmac('sha256', secret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(rawBody);
  return {
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': `v0=${hmac.digest('hex')}`,
  };
}
