import type { UpstreamPool } from '@tollgate/mcp-upstream';
import { mcpTool } from './mcp.tool';
import type { ToolRegistry } from './tool-registry';

/** An MCP call the session waits for this long before recording it as an error. */
export const MCP_CALL_TIMEOUT_MS = 60_000;

/**
 * The built-in tools plus every tool the MCP servers list right now. A tool whose server is
 * down is absent: asked for at redrive, it no longer exists (S5) and its prompt expires.
 */
export function withMcpTools(
  builtIns: ToolRegistry,
  servers: readonly string[],
  pool: UpstreamPool | undefined,
): ToolRegistry {
  const configured = new Set(servers);
  return {
    get: (name) => {
      const builtIn = builtIns.get(name);
      if (builtIn !== undefined || pool === undefined) return builtIn;
      const listed = pool.find(name);
      return listed && mcpTool(listed, pool, MCP_CALL_TIMEOUT_MS);
    },
    list: () => [
      ...builtIns.list(),
      ...(pool?.tools().map((listed) => mcpTool(listed, pool, MCP_CALL_TIMEOUT_MS)) ?? []),
    ],
    isMcpTool: (name) => configured.has(serverOf(name)),
  };
}

/**
 * The `<server>` of a `<server>__<tool>` name, as splitToolName finds it (a server name cannot
 * hold `__`, so the first one splits). Not imported from @tollgate/mcp-upstream: that loads
 * the MCP SDK, which a session service without MCP servers must not pay for at every start.
 */
function serverOf(name: string): string {
  const at = name.indexOf('__');
  return at > 0 && at + 2 < name.length ? name.slice(0, at) : '';
}
