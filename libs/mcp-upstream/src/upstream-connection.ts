import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  type CallToolResult,
  type Progress,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { CoalescingStdioClientTransport } from './coalescing-stdio.transport';
import type { UpstreamSpec } from './mcp-servers.config';
import { ownSignalFetch } from './own-signal-fetch';
import { routeResponsesDirectly } from './response-dispatch';
import { type BackoffSettings, DEFAULT_BACKOFF, restartDelayMs } from './restart-backoff';
import { UpstreamCallError } from './upstream-call.error';

export type UpstreamStatus = 'starting' | 'up' | 'down';

export interface UpstreamState {
  readonly status: UpstreamStatus;
  /** Why it is down (or last went down): an exit, a failed start, an unanswered ping. */
  readonly lastError: string | null;
  readonly restarts: number;
}

export interface UpstreamOptions {
  readonly logger: Logger;
  readonly backoff?: BackoffSettings;
  /** A start (spawn or connect, initialize, list tools) that takes longer has failed. */
  readonly startTimeoutMs?: number;
  /** A hung upstream is found by a ping it does not answer, and restarted. */
  readonly pingIntervalMs?: number;
  readonly pingTimeoutMs?: number;
  readonly clientName?: string;
}

export interface CallOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly onprogress?: (progress: Progress) => void;
}

/**
 * One upstream MCP server, kept running: started at once, restarted with backoff whenever it
 * fails to start, exits or stops answering pings. Its tools are the last list it gave, so a
 * call to a server that is down names it instead of calling the tool unknown.
 */
export class UpstreamConnection {
  private current: { client: Client; generation: number } | undefined;
  private generation = 0;
  private status: UpstreamStatus = 'starting';
  private lastError: string | null = null;
  private restarts = 0;
  private failuresInARow = 0;
  private knownTools: readonly Tool[] = [];
  private restartTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private startup: Promise<void> = Promise.resolve();
  private readonly toolListeners = new Set<() => void>();

  constructor(
    readonly name: string,
    private readonly spec: UpstreamSpec,
    private readonly options: UpstreamOptions,
  ) {}

  start(): Promise<void> {
    this.startup = this.connect();
    return this.startup;
  }

  state(): UpstreamState {
    return { status: this.status, lastError: this.lastError, restarts: this.restarts };
  }

  tools(): readonly Tool[] {
    return this.knownTools;
  }

  onToolsChanged(listener: () => void): () => void {
    this.toolListeners.add(listener);
    return () => this.toolListeners.delete(listener);
  }

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    if (this.status === 'starting') await this.startupWithin(options.timeoutMs);
    const live = this.current;
    if (this.status !== 'up' || live === undefined) {
      throw new UpstreamCallError(this.name, 'unavailable', this.downReason());
    }
    try {
      // A raw request, not client.callTool: the gateway returns the result unchanged, and
      // checking it against the tool's output schema is the agent's business.
      return await live.client.request(
        { method: 'tools/call', params: { name: tool, arguments: args } },
        CallToolResultSchema,
        {
          timeout: options.timeoutMs,
          signal: options.signal,
          onprogress: options.onprogress,
          resetTimeoutOnProgress: false,
        },
      );
    } catch (error) {
      throw UpstreamCallError.from(this.name, error, options.timeoutMs);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    clearInterval(this.pingTimer);
    await this.closeCurrent();
  }

  private downReason(): string {
    return this.lastError ?? 'not connected';
  }

  private async startupWithin(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.startup,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const generation = ++this.generation;
    this.status = 'starting';
    const client = new Client(
      { name: this.options.clientName ?? 'tollgate-mcp', version: '1.0.0' },
      { capabilities: {} },
    );
    client.onclose = () => {
      if (this.current?.generation !== generation) return;
      const reason = this.exitReason();
      this.fail(generation, this.status === 'starting' ? `failed to start: ${reason}` : reason);
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (this.current?.generation === generation)
        await this.refreshTools(client).catch(() => undefined);
    });
    this.current = { client, generation };
    const timeout = this.options.startTimeoutMs ?? 30_000;
    try {
      const transport = this.transport();
      await client.connect(transport, { timeout });
      routeResponsesDirectly(client, transport);
      await this.refreshTools(client, timeout);
    } catch (error) {
      this.fail(generation, `failed to start: ${messageOf(error)}`);
      return;
    }
    if (this.current?.generation !== generation) return;
    this.status = 'up';
    this.failuresInARow = 0;
    this.options.logger.info({ upstream: this.name, tools: this.knownTools.length }, 'upstream up');
    this.watch(client, generation);
  }

  private exitReason(): string {
    return this.spec.kind === 'stdio' ? 'the server process exited' : 'the connection closed';
  }

  private transport(): Transport {
    if (this.spec.kind === 'http') {
      return new StreamableHTTPClientTransport(new URL(this.spec.url), {
        requestInit: { headers: this.spec.headers },
        fetch: ownSignalFetch,
      });
    }
    const transport = new CoalescingStdioClientTransport({
      command: this.spec.command,
      args: this.spec.args,
      env: { ...getDefaultEnvironment(), ...this.spec.env },
      cwd: this.spec.cwd,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.options.logger.debug(
        { upstream: this.name, stderr: chunk.toString().trimEnd() },
        'upstream stderr',
      );
    });
    return transport;
  }

  private async refreshTools(client: Client, timeout = 30_000): Promise<void> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    this.knownTools = tools;
    this.toolListeners.forEach((listener) => listener());
  }

  private watch(client: Client, generation: number): void {
    clearInterval(this.pingTimer);
    const interval = this.options.pingIntervalMs ?? 10_000;
    const timeout = this.options.pingTimeoutMs ?? 5_000;
    this.pingTimer = setInterval(() => {
      client.ping({ timeout }).catch(() => {
        this.fail(generation, `did not answer a ping within ${timeout} ms`);
      });
    }, interval);
    this.pingTimer.unref();
  }

  private fail(generation: number, reason: string): void {
    if (this.current?.generation !== generation || this.stopped) return;
    clearInterval(this.pingTimer);
    this.status = 'down';
    this.lastError = reason;
    this.failuresInARow += 1;
    const delay = restartDelayMs(this.failuresInARow, this.options.backoff ?? DEFAULT_BACKOFF);
    this.options.logger.warn({ upstream: this.name, reason, restartInMs: delay }, 'upstream down');
    void this.closeCurrent();
    this.restartTimer = setTimeout(() => {
      this.restarts += 1;
      this.startup = this.connect();
    }, delay);
    this.restartTimer.unref();
  }

  private async closeCurrent(): Promise<void> {
    const closing = this.current;
    this.current = undefined;
    // Closing a stdio transport ends the child (SIGTERM, then SIGKILL), a hung one included.
    await closing?.client.close().catch(() => undefined);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
