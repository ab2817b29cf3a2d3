import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { UpstreamPool } from '@tollgate/mcp-upstream';
import { ReadinessService } from '@tollgate/service-runtime';

export const MCP_POOL = Symbol('MCP_POOL');

/** How long the start waits for the MCP servers before serving without the slow ones. */
const FIRST_START_WAIT_MS = 15_000;

/**
 * Starts the MCP servers with the service, before sessions recover: a prompt redriven at start
 * must find its server's tool. Readiness does not hang on them — a server that is down only
 * takes its own tools away — but its state is shown under `mcpServers`.
 */
@Injectable()
export class McpUpstreams implements OnModuleInit, OnApplicationShutdown {
  constructor(
    /** Undefined when no MCP server is configured (the library is then never loaded). */
    @Inject(MCP_POOL) private readonly pool: UpstreamPool | undefined,
    private readonly readiness: ReadinessService,
  ) {}

  async onModuleInit(): Promise<void> {
    const pool = this.pool;
    if (pool === undefined || pool.serverNames().length === 0) return;
    this.readiness.describe('mcpServers', () => pool.states());
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      pool.start(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, FIRST_START_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool?.stop();
  }
}
