import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Why a scrape was refused; the answer names it, never the token. */
export type MetricsRefusal = 'metrics_token_required' | 'bad_metrics_token';

/**
 * Who may read `/metrics`. The bindings' port is reachable by the chat platforms, so their
 * metrics (durables, refusal counts, stream sizes) must not be readable by the world. With
 * TOLLGATE_METRICS_TOKEN set, a scrape must carry `Authorization: Bearer <token>`, compared
 * as SHA-256 digests in constant time. Without it, only a direct connection from this host
 * may read them: loopback, and no `Forwarded`/`X-Forwarded-For`, since a proxy on the same
 * host would otherwise turn every outside request into a local one.
 */
export class MetricsAccess {
  private readonly digest: Buffer | undefined;

  constructor(token: string | undefined) {
    this.digest = token === undefined ? undefined : sha256(token);
  }

  refusal(
    remoteAddress: string | undefined,
    headers: IncomingHttpHeaders,
  ): MetricsRefusal | undefined {
    if (this.digest === undefined) {
      const forwarded = headers.forwarded !== undefined || headers['x-forwarded-for'] !== undefined;
      return isLoopback(remoteAddress) && !forwarded ? undefined : 'metrics_token_required';
    }
    const match = /^Bearer (\S+)$/.exec(headers.authorization ?? '');
    if (!match?.[1]) return 'metrics_token_required';
    return timingSafeEqual(sha256(match[1]), this.digest) ? undefined : 'bad_metrics_token';
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}
