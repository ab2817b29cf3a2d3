import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Random per process, so a restarted replica never mistakes its predecessor's lease for its
 * own; the host name and pid are there for the operator reading `lease_owner`.
 */
export function newReplicaId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}
