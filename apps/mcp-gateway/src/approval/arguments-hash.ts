import { createHash } from 'node:crypto';
import { canonicalize } from 'json-canonicalize';

/** `sha256:` + hex SHA-256 of the RFC 8785 canonical form: the hash the approval API binds to. */
export function argumentsHashOf(args: Record<string, unknown>): string {
  return `sha256:${createHash('sha256').update(canonicalize(args)).digest('hex')}`;
}

/**
 * The same call (MCP session, listed tool, arguments) finds the same approval; `generation`
 * moves on once an approval is used up, so the identical call later asks afresh.
 */
export function idempotencyKeyOf(
  session: string,
  tool: string,
  argumentsHash: string,
  generation: number,
): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([session, tool, argumentsHash]))
    .digest('hex');
  return `mcp-${digest}-${generation}`;
}
