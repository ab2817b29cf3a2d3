import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
}

/** A session id the gateway hands out, and the only shape it takes back after a restart. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The streamable HTTP sessions: one transport and Server each. A session id the gateway
 * does not know (it restarted) is taken back instead of answered 404: the agent keeps its
 * MCP session id, so its identical call finds the approval it was waiting on.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  // Requests racing in on one unknown id resume it once.
  private readonly resuming = new Map<string, Promise<Session>>();

  constructor(private readonly newServer: (sessionOf: () => string) => Server) {}

  servers(): Server[] {
    return [...this.sessions.values()].map((s) => s.server);
  }

  count(): number {
    return this.sessions.size;
  }

  async handle(request: Request, parsedBody: unknown): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    let session = id === null ? undefined : this.sessions.get(id);
    if (id !== null && session === undefined) {
      if (!SESSION_ID.test(id)) return notFound();
      let resumed = this.resuming.get(id);
      if (resumed === undefined) {
        resumed = this.resume(id).finally(() => this.resuming.delete(id));
        this.resuming.set(id, resumed);
      }
      session = await resumed;
    }
    if (session === undefined) session = await this.open(() => randomUUID());
    return session.transport.handleRequest(request, { parsedBody });
  }

  async closeAll(): Promise<void> {
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map((s) => s.server.close().catch(() => undefined)));
  }

  private async open(nextId: () => string): Promise<Session> {
    let assigned = '';
    const server = this.newServer(() => assigned);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => {
        assigned = nextId();
        return assigned;
      },
      onsessioninitialized: (sessionId) => {
        this.sessions.set(sessionId, session);
      },
      onsessionclosed: (sessionId) => {
        this.sessions.delete(sessionId);
      },
    });
    const session: Session = { transport, server };
    transport.onclose = () => {
      if (assigned !== '') this.sessions.delete(assigned);
    };
    await server.connect(transport);
    return session;
  }

  /** Re-opens a session under its old id, initialized on the agent's behalf. */
  private async resume(id: string): Promise<Session> {
    const session = await this.open(() => id);
    const initialize = await session.transport.handleRequest(
      new Request('http://gateway/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: LATEST_PROTOCOL_VERSION,
            capabilities: {},
            clientInfo: { name: 'resumed-session', version: '0' },
          },
        }),
      }),
    );
    await initialize.text();
    return session;
  }
}

function notFound(): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
    { status: 404 },
  );
}
