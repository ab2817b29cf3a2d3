import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamSpec } from './mcp-servers.config';
import { listedToolName, splitToolName } from './tool-names';
import { UpstreamCallError } from './upstream-call.error';
import {
  type CallOptions,
  UpstreamConnection,
  type UpstreamOptions,
  type UpstreamState,
} from './upstream-connection';

/** An upstream tool under its listed name, with the server it came from. */
export interface ListedTool {
  readonly server: string;
  readonly tool: Tool;
  /** `<server>__<tool>`; `tool.name` stays the upstream's own. */
  readonly name: string;
}

/** Every configured upstream, started together; the gateway and the session service share it. */
export class UpstreamPool {
  private readonly connections = new Map<string, UpstreamConnection>();

  constructor(servers: ReadonlyMap<string, UpstreamSpec>, options: UpstreamOptions) {
    for (const [name, spec] of servers) {
      this.connections.set(name, new UpstreamConnection(name, spec, options));
    }
  }

  /** Starts every upstream; resolves once each is up or has failed its first start. */
  async start(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.start()));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.stop()));
  }

  serverNames(): string[] {
    return [...this.connections.keys()];
  }

  tools(): ListedTool[] {
    return [...this.connections.values()].flatMap((c) =>
      c.tools().map((tool) => ({ server: c.name, tool, name: listedToolName(c.name, tool.name) })),
    );
  }

  find(listed: string): ListedTool | undefined {
    const parts = splitToolName(listed);
    if (parts === undefined) return undefined;
    const tool = this.connections
      .get(parts.server)
      ?.tools()
      .find((t) => t.name === parts.tool);
    return tool && { server: parts.server, tool, name: listed };
  }

  /** Whether `listed` names a configured server, known tool or not: its server may be down. */
  serverOf(listed: string): string | undefined {
    const parts = splitToolName(listed);
    return parts !== undefined && this.connections.has(parts.server) ? parts.server : undefined;
  }

  states(): Record<string, UpstreamState> {
    return Object.fromEntries([...this.connections].map(([name, c]) => [name, c.state()]));
  }

  /** Upstreams not up right now, by name, with why. */
  down(): Record<string, string> {
    return Object.fromEntries(
      [...this.connections]
        .filter(([, c]) => c.state().status !== 'up')
        .map(([name, c]) => [name, c.state().lastError ?? c.state().status]),
    );
  }

  onToolsChanged(listener: () => void): void {
    this.connections.forEach((c) => c.onToolsChanged(listener));
  }

  async call(
    listed: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const parts = splitToolName(listed);
    const connection = parts && this.connections.get(parts.server);
    if (parts === undefined || connection === undefined) {
      throw new UpstreamCallError(listed, 'protocol', 'no such server');
    }
    return connection.callTool(parts.tool, args, options);
  }
}
