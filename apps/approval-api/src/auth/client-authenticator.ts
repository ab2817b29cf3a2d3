import { createHash } from 'node:crypto';
import {
  type ApprovalClient,
  ApprovalClientsRepository,
  parseKey,
  secretMatches,
} from '@tollgate/approval-clients';

/** Verified (key, stored hash) pairs kept at most this many; refused ones as many again. */
const VERIFIED_CACHE_SIZE = 1_000;

/**
 * Who a bearer key belongs to. The client's row is read on every request, so a revoked or
 * rotated key is refused at once on every replica; only the scrypt check (≈ 30 ms of CPU) is
 * remembered, keyed by the presented key's SHA-256 and the stored hash it matched, so a
 * rotation (a new stored hash) makes the old entry useless. A wrong secret is remembered the
 * same way, apart: the same wrong key sent again (an agent retrying a stale key, or someone
 * replaying a guess) is refused without another scrypt, so repeating it cannot buy 30 ms of
 * CPU a request; each new wrong secret still costs its one check, and a flood of them cannot
 * push the verified keys out.
 */
export class ClientAuthenticator {
  private readonly verified = new Map<string, string>();
  private readonly refused = new Map<string, string>();

  constructor(private readonly clients: ApprovalClientsRepository) {}

  async authenticate(header: string | undefined): Promise<ApprovalClient | undefined> {
    const presented = /^Bearer ([^\s]+)$/.exec(header ?? '')?.[1];
    const parsed = presented === undefined ? undefined : parseKey(presented);
    if (presented === undefined || parsed === undefined) return undefined;
    const record = await this.clients.findByKeyId(parsed.keyId);
    if (record === undefined || record.client.revokedAt !== null) return undefined;
    const fingerprint = createHash('sha256').update(presented).digest('base64');
    if (this.verified.get(fingerprint) === record.keyHash) return record.client;
    if (this.refused.get(fingerprint) === record.keyHash) return undefined;
    if (!(await secretMatches(parsed.secret, record.keyHash))) {
      remember(this.refused, fingerprint, record.keyHash);
      return undefined;
    }
    remember(this.verified, fingerprint, record.keyHash);
    return record.client;
  }
}

/** Sets `key`, dropping the oldest entry when the map is full. */
function remember(cache: Map<string, string>, key: string, keyHash: string): void {
  if (cache.size >= VERIFIED_CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(key, keyHash);
}
