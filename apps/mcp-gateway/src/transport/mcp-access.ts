import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Why a request to `/mcp` was refused; the answer names it, never the token. */
export type McpAccessRefusal = 'mcp_token_required' | 'bad_mcp_token';

/**
 * Who may use `/mcp`. With TOLLGATE_MCP_GATEWAY_TOKEN set, every request must carry
 * `Authorization: Bearer <token>`; only the token's SHA-256 digest is kept, and digests are
 * compared in constant time (equal lengths whatever was sent). Without it, `/mcp` is open, which
 * the config allows only on a loopback address.
 */
export class McpAccess {
  private readonly digest: Buffer | undefined;

  constructor(token: string | undefined) {
    this.digest = token === undefined ? undefined : sha256(token);
  }

  refusal(headers: IncomingHttpHeaders): McpAccessRefusal | undefined {
    if (this.digest === undefined) return undefined;
    const match = /^Bearer (\S+)$/i.exec(headers.authorization ?? '');
    if (!match?.[1]) return 'mcp_token_required';
    return timingSafeEqual(sha256(match[1]), this.digest) ? undefined : 'bad_mcp_token';
  }
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
