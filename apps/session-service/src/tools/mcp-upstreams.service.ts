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
    @Inject(MCP_POOL) private readonly pool: UpstreamPool,
    private readonly readiness: ReadinessService,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.pool.serverNames().length === 0) return;
    this.readiness.describe('mcpServers', () => this.pool.states());
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.pool.start(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, FIRST_START_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.stop();
  }
}
