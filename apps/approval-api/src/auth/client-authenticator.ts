import { createHash } from 'node:crypto';
import {
  type ApprovalClient,
  ApprovalClientsRepository,
  parseKey,
  secretMatches,
} from '@tollgate/approval-clients';

/** Verified (key, stored hash) pairs kept at most this many. */
const VERIFIED_CACHE_SIZE = 1_000;

/**
 * Who a bearer key belongs to. The client's row is read on every request, so a revoked or
 * rotated key is refused at once on every replica; only the scrypt check (≈ 30 ms of CPU) is
 * remembered, keyed by the presented key's SHA-256 and the stored hash it matched, so a
 * rotation (a new stored hash) makes the old entry useless.
 */
export class ClientAuthenticator {
  private readonly verified = new Map<string, string>();

  constructor(private readonly clients: ApprovalClientsRepository) {}

  async authenticate(header: string | undefined): Promise<ApprovalClient | undefined> {
    const presented = /^Bearer ([^\s]+)$/.exec(header ?? '')?.[1];
    const parsed = presented === undefined ? undefined : parseKey(presented);
    if (presented === undefined || parsed === undefined) return undefined;
    const record = await this.clients.findByKeyId(parsed.keyId);
    if (record === undefined || record.client.revokedAt !== null) return undefined;
    const fingerprint = createHash('sha256').update(presented).digest('base64');
    if (this.verified.get(fingerprint) === record.keyHash) return record.client;
    if (!(await secretMatches(parsed.secret, record.keyHash))) return undefined;
    if (this.verified.size >= VERIFIED_CACHE_SIZE) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(fingerprint, record.keyHash);
    return record.client;
  }
}
