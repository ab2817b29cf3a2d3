import { createHmac } from 'node:crypto';

/**
 * `Tollgate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`
 * (docs/protocol.md): the receiver recomputes it over the raw body it got and refuses an old
 * `t`, so a captured delivery cannot be replayed later.
 */
export function webhookSignature(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
