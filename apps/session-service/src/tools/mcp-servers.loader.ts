import type { ServersConfig } from '@tollgate/mcp-upstream';
import { ConfigError } from '@tollgate/service-runtime';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface McpServersStartConfig {
  readonly mcpServers: ServersConfig;
  /** What `${VAR}` brought into the servers file: censored in every log line by its name. */
  readonly MCP_SERVERS_SECRET: readonly string[];
}

/**
 * TOLLGATE_MCP_SERVERS_FILE: the `servers:` block of the gateway's config (other keys are the
 * gateway's and ignored), read with the environment so a bad one stops the start.
 */
export async function withMcpServers<C extends { readonly TOLLGATE_MCP_SERVERS_FILE?: string }>(
  config: C,
  env: Readonly<Record<string, string | undefined>>,
): Promise<C & McpServersStartConfig> {
  const file = config.TOLLGATE_MCP_SERVERS_FILE;
  if (!file) {
    return { ...config, mcpServers: { servers: new Map(), secrets: [] }, MCP_SERVERS_SECRET: [] };
  }
  // Loaded only with a servers file: the library brings the MCP SDK (~0.1 s of CPU per start).
  const { parseServersBlock, parseYamlKeepingReferences } = await import('@tollgate/mcp-upstream');
  let raw: unknown;
  try {
    raw = parseYamlKeepingReferences(readFileSync(file, 'utf8'), parse);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ConfigError([
      { variable: 'TOLLGATE_MCP_SERVERS_FILE', problem: `cannot read ${file}: ${reason}` },
    ]);
  }
  try {
    const servers = parseServersBlock((raw as { servers?: unknown } | null)?.servers, env);
    return { ...config, mcpServers: servers, MCP_SERVERS_SECRET: servers.secrets };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(
      error.problems.map((p) => ({
        variable: 'TOLLGATE_MCP_SERVERS_FILE',
        problem: `${file}: ${p.variable}: ${p.problem}`,
      })),
    );
  }
}
