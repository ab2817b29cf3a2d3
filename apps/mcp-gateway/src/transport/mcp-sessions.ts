import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeRefusal } from './http-answers';
import { headerOf, type HttpRefusal, SESSION_NOT_FOUND } from './mcp-http-rules';
import { NodeHttpTransport } from './node-http.transport';
import { routeRequestsDirectly } from './request-dispatch';
import {
  admitSession,
  duplicateRequestId,
  idleSessions,
  type RequestId,
  requestIdsOf,
  type SessionLimits,
  type SessionView,
} from './session-rules';

interface Session {
  readonly transport: NodeHttpTransport;
  readonly server: Server;
  /** The id once initialized; '' before. */
  id: string;
  open: number;
  lastActive: number;
  /** Request ids whose POST is still being answered. */
  readonly requestIds: Set<RequestId>;
}

/** What the sessions report, for the gateway's metrics. */
export interface SessionEvents {
  closed(why: 'idle' | 'evicted'): void;
  refused(reason: 'session_limit' | 'duplicate_request_id'): void;
}

const NO_EVENTS: SessionEvents = { closed: () => undefined, refused: () => undefined };

/** A session id the gateway hands out, and the only shape it takes back after a restart. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Seconds an agent refused for the session limit is told to wait. */
const RETRY_AFTER_S = 5;

/**
 * The streamable HTTP sessions: one transport and Server each. A session id the gateway
 * does not know (it restarted, or closed the session as idle) is taken back instead of
 * answered 404: the agent keeps its MCP session id, so its identical call finds the approval
 * it was waiting on. Sessions are bounded: one idle past `idleMs` is closed, and past `max`
 * the oldest idle one gives way (its agent resumes it on its next request) or, when every
 * session is busy, the new one is refused.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  // Requests racing in on one unknown id resume it once.
  private readonly resuming = new Map<string, Promise<Session | undefined>>();
  private opening = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly newServer: (sessionOf: () => string) => Server,
    private readonly limits: SessionLimits,
    private readonly events: SessionEvents = NO_EVENTS,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(
      () => this.closeIdle(),
      Math.min(60_000, Math.max(100, limits.idleMs / 4)),
    );
    this.sweeper.unref();
  }

  servers(): Server[] {
    return [...this.sessions.values()].map((s) => s.server);
  }

  /** Live sessions: busy ones have an exchange open (a call, a GET stream), idle ones none. */
  counts(): { busy: number; idle: number } {
    let busy = 0;
    for (const session of this.sessions.values()) if (session.open > 0) busy += 1;
    return { busy, idle: this.sessions.size - busy };
  }

  /** Answers one HTTP exchange on `/mcp`; settles when its response is over. */
  async handle(req: IncomingMessage, res: ServerResponse, parsedBody: unknown): Promise<void> {
    const id = headerOf(req.headers, 'mcp-session-id');
    let session = id === undefined ? undefined : this.sessions.get(id);
    if (id !== undefined && session === undefined) {
      if (!SESSION_ID.test(id)) return writeRefusal(res, SESSION_NOT_FOUND);
      let resumed = this.resuming.get(id);
      if (resumed === undefined) {
        resumed = this.admitted(() => this.resume(id)).finally(() => this.resuming.delete(id));
        this.resuming.set(id, resumed);
      }
      session = await resumed;
    } else if (session === undefined) {
      // Only an initialize becomes a session; anything else the transport refuses at once, so
      // it needs no room and must not push an idle session out.
      session = initializes(parsedBody)
        ? await this.admitted(() => this.open(() => randomUUID()))
        : await this.open(() => randomUUID());
    }
    if (session === undefined) return writeRefusal(res, this.sessionLimit());
    const ids = requestIdsOf(parsedBody);
    const duplicate = duplicateRequestId(session.requestIds, ids);
    if (duplicate !== undefined) return writeRefusal(res, this.duplicate(duplicate));
    ids.forEach((requestId) => session.requestIds.add(requestId));
    session.open += 1;
    session.lastActive = this.now();
    try {
      await session.transport.handle(req, res, parsedBody);
    } finally {
      // The POST's answer is over: its requests are answered, or their agent has left.
      ids.forEach((requestId) => session.requestIds.delete(requestId));
      session.open -= 1;
      session.lastActive = this.now();
    }
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map((s) => s.server.close().catch(() => undefined)));
  }

  private views(): SessionView[] {
    return [...this.sessions.values()].map((s) => ({
      id: s.id,
      open: s.open,
      lastActive: s.lastActive,
    }));
  }

  private closeIdle(): void {
    for (const id of idleSessions(this.views(), this.now(), this.limits)) {
      this.close(id, 'idle');
    }
  }

  private close(id: string, why: 'idle' | 'evicted'): void {
    const session = this.sessions.get(id);
    if (session === undefined) return;
    this.sessions.delete(id);
    this.events.closed(why);
    void session.server.close().catch(() => undefined);
  }

  /** Opens a session if the limit allows, making room by closing an idle one when it must. */
  private async admitted(open: () => Promise<Session>): Promise<Session | undefined> {
    const admission = admitSession(this.views(), this.opening, this.limits);
    if (admission.kind === 'refuse') return undefined;
    if (admission.kind === 'evict') this.close(admission.id, 'evicted');
    this.opening += 1;
    try {
      return await open();
    } finally {
      this.opening -= 1;
    }
  }

  private async open(nextId: () => string): Promise<Session> {
    const server = this.newServer(() => session.id);
    const transport = new NodeHttpTransport({
      sessionIdGenerator: () => {
        session.id = nextId();
        return session.id;
      },
      onsessioninitialized: (sessionId) => {
        this.sessions.set(sessionId, session);
      },
      onsessionclosed: (sessionId) => {
        this.sessions.delete(sessionId);
      },
    });
    const session: Session = {
      transport,
      server,
      id: '',
      open: 0,
      lastActive: this.now(),
      requestIds: new Set(),
    };
    transport.onclose = () => {
      if (session.id !== '' && this.sessions.get(session.id) === session) {
        this.sessions.delete(session.id);
      }
    };
    await server.connect(transport);
    routeRequestsDirectly(server, transport);
    return session;
  }

  /** Re-opens a session under its old id, initialized on the agent's behalf. */
  private async resume(id: string): Promise<Session> {
    const session = await this.open(() => id);
    await session.transport.initializeUnseen({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'resumed-session', version: '0' },
      },
    });
    return session;
  }

  private sessionLimit(): HttpRefusal {
    this.events.refused('session_limit');
    // 429, not 503: the gateway is well; this agent must wait for a session to come free.
    return {
      status: 429,
      code: -32000,
      message: `The gateway already holds its limit of ${this.limits.max} MCP sessions, each with a call in progress; try again shortly.`,
      data: { reason: 'session_limit' },
      headers: { 'retry-after': String(RETRY_AFTER_S) },
    };
  }

  /** Answered with id null: an error under the id would settle the agent's first request. */
  private duplicate(id: RequestId): HttpRefusal {
    this.events.refused('duplicate_request_id');
    return {
      status: 409,
      code: -32600,
      message: `Request id ${JSON.stringify(id)} is already in progress on this session; a request id must be unique among a session's open requests.`,
      data: { reason: 'duplicate_request_id', id },
    };
  }
}

function initializes(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (m) =>
      typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize',
  );
}
