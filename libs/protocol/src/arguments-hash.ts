import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';

/**
 * What an approval is bound to (docs/protocol.md, the approval API): `sha256:` and the hex
 * SHA-256 of the RFC 8785 canonical form of the arguments, so the agent, approval-api and the
 * session all derive the same value from equal JSON whatever its key order or spacing.
 */
export function argumentsHashOf(args: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalize(args), 'utf8').digest('hex')}`;
}
