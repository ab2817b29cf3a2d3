import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

export type UpstreamCallFailure = 'unavailable' | 'timeout' | 'connection_lost' | 'protocol';

/** A call that did not reach the tool or got no answer from it; the message names the server. */
export class UpstreamCallError extends Error {
  constructor(
    readonly server: string,
    readonly failure: UpstreamCallFailure,
    readonly detail: string,
  ) {
    super(UpstreamCallError.describe(server, failure, detail));
    this.name = 'UpstreamCallError';
  }

  static from(server: string, error: unknown, timeoutMs: number): UpstreamCallError {
    if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
      return new UpstreamCallError(
        server,
        'timeout',
        `no answer within ${Math.round(timeoutMs / 1000)} s`,
      );
    }
    if (error instanceof McpError && error.code === (ErrorCode.ConnectionClosed as number)) {
      return new UpstreamCallError(
        server,
        'connection_lost',
        'the server went away during the call',
      );
    }
    return new UpstreamCallError(
      server,
      'protocol',
      error instanceof Error ? error.message : String(error),
    );
  }

  private static describe(server: string, failure: UpstreamCallFailure, detail: string): string {
    switch (failure) {
      case 'unavailable':
        return `MCP server "${server}" is unavailable (${detail}); it is being restarted, try again shortly`;
      case 'timeout':
        return `MCP server "${server}" did not answer: ${detail}`;
      case 'connection_lost':
        return `MCP server "${server}" failed during the call: ${detail}; it is being restarted`;
      case 'protocol':
        return `MCP server "${server}" refused the call: ${detail}`;
    }
  }
}
