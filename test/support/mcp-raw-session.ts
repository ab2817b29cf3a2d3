import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

/**
 * An MCP session over plain HTTP, for what the SDK's own Client never does: reuse a request id
 * while it is open, or hold a call without the standalone GET stream the Client always opens.
 */
export class RawMcpSession {
  private constructor(
    private readonly url: string,
    readonly id: string,
    private readonly headers: Record<string, string>,
  ) {}

  static async open(url: string, headers: Record<string, string> = {}): Promise<RawMcpSession> {
    const initialize = await postMcp(url, headers, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'raw-agent', version: '0' },
      },
    });
    const id = initialize.headers.get('mcp-session-id');
    await initialize.text();
    if (initialize.status !== 200 || id === null) {
      throw new Error(`initialize answered ${initialize.status} without a session id`);
    }
    const session = new RawMcpSession(url, id, headers);
    await (await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
    return session;
  }

  /** Resolves once the gateway has sent its status line; the body may still be streaming. */
  post(body: unknown): Promise<Response> {
    return postMcp(
      this.url,
      {
        ...this.headers,
        'mcp-session-id': this.id,
        'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      },
      body,
    );
  }

  callTool(id: number | string, name: string, args: Record<string, unknown>): Promise<Response> {
    return this.post({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
  }
}

function postMcp(url: string, headers: Record<string, string>, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC messages of an answer, an SSE stream (read to its end) or plain JSON. */
export async function messagesOf(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const parsed = JSON.parse(text) as Record<string, unknown> | Record<string, unknown>[];
    return Array.isArray(parsed) ? parsed : [parsed];
  }
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Record<string, unknown>);
}
