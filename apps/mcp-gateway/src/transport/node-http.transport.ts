import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { keepAlive, openSse, writeRefusal, writeSseEvent } from './http-answers';
import {
  initializeRefusal,
  isInitialize,
  isRequest,
  isResponse,
  METHOD_NOT_ALLOWED,
  ONE_STANDING_STREAM,
  postMessages,
  SESSION_NOT_FOUND,
  sessionRefusal,
  standingStreamRefusal,
} from './mcp-http-rules';
import { type Answerer, PostExchange } from './post-exchange';

export interface NodeHttpTransportOptions {
  /** The id an initialize gives the session (a new one, or a resumed session's old one). */
  readonly sessionIdGenerator: () => string;
  readonly onsessioninitialized?: (sessionId: string) => void;
  readonly onsessionclosed?: (sessionId: string) => void;
}

/**
 * One MCP session's streamable HTTP transport, on node:http's request and response directly.
 * The SDK's web-standard transport builds a web Request, Response and ReadableStream per POST
 * and validates each message several times over; on the gateway's hot path that was most of its
 * CPU per call. This one keeps its protocol (session id, initialize, protocol version header,
 * 202 for what needs no answer, GET's standing stream, DELETE, its refusals) and answers a call
 * in one JSON write unless the call needs a stream (see PostExchange). No event store: like the
 * gateway's SDK transport before it, a dropped stream is not replayed.
 */
export class NodeHttpTransport implements Transport {
  sessionId?: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  private initialized = false;
  private closed = false;
  /** Who answers each open request id; the gateway refuses a second request under an open id. */
  private readonly answerers = new Map<RequestId, Answerer>();
  private standing: { res: ServerResponse; stop: () => void } | undefined;

  constructor(private readonly options: NodeHttpTransportOptions) {}

  async start(): Promise<void> {
    // Nothing to open: requests arrive through handle().
  }

  /** Answers one HTTP exchange; settles when its response is over. */
  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (this.closed) return writeRefusal(res, SESSION_NOT_FOUND);
    if (req.method === 'POST') return this.post(req, res, body);
    if (req.method === 'GET') return this.get(req, res);
    if (req.method === 'DELETE') return this.delete(req, res);
    writeRefusal(res, METHOD_NOT_ALLOWED);
  }

  /** Initializes the session under its id without an agent: a resumed session's handshake. */
  async initializeUnseen(initialize: JSONRPCMessage & { id: RequestId }): Promise<void> {
    this.open();
    await new Promise<void>((resolve) => {
      this.answerers.set(initialize.id, {
        deliver: (message) => {
          if (isResponse(message)) {
            this.answerers.delete(initialize.id);
            resolve();
          }
        },
        end: resolve,
      });
      this.onmessage?.(initialize);
    });
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const response = isResponse(message);
    const requestId = response ? (message as { id: RequestId }).id : options?.relatedRequestId;
    if (requestId === undefined) {
      if (response) {
        throw new Error('Cannot send a response on a standalone SSE stream');
      }
      // Not about any request: the standing stream's, or nobody's when there is none.
      if (this.standing !== undefined) writeSseEvent(this.standing.res, message);
      return;
    }
    // Its agent may have left (or the session closed): the answer has nowhere to go.
    this.answerers.get(requestId)?.deliver(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const open = [...new Set(this.answerers.values())];
    this.answerers.clear();
    open.forEach((answerer) => answerer.end());
    this.endStanding();
    this.onclose?.();
  }

  private post(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> | void {
    const parsed = postMessages(req.headers, body);
    if (parsed.kind === 'refused') return writeRefusal(res, parsed.refusal);
    const { messages } = parsed;
    const initializes = messages.some(isInitialize);
    const refusal = initializes
      ? initializeRefusal(this.initialized, messages)
      : sessionRefusal(req.headers, this.initialized, this.sessionId);
    if (refusal !== undefined) return writeRefusal(res, refusal);
    if (initializes) this.open();
    const requests = messages.filter(isRequest);
    if (requests.length === 0) {
      messages.forEach((message) => this.onmessage?.(message));
      // Status set, not written ahead: end() then says Content-Length: 0, not an empty chunked body.
      res.statusCode = 202;
      res.end();
      return;
    }
    const ids = requests.map((request) => request.id);
    // A progress token asks for notifications before the answer: only a stream carries them.
    const streamNow = requests.some((r) => r.params?._meta?.progressToken !== undefined);
    const exchange = new PostExchange(res, ids, this.sessionId, streamNow, (done) =>
      done.forEach((id) => {
        if (this.answerers.get(id) === exchange) this.answerers.delete(id);
      }),
    );
    ids.forEach((id) => this.answerers.set(id, exchange));
    messages.forEach((message) => this.onmessage?.(message));
    return exchange.done;
  }

  private get(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    const refusal =
      standingStreamRefusal(req.headers) ??
      sessionRefusal(req.headers, this.initialized, this.sessionId);
    if (refusal !== undefined) return writeRefusal(res, refusal);
    if (this.standing !== undefined) return writeRefusal(res, ONE_STANDING_STREAM);
    openSse(res, this.sessionId);
    const standing = { res, stop: keepAlive(res) };
    this.standing = standing;
    return new Promise((resolve) => {
      res.once('close', () => {
        standing.stop();
        if (this.standing === standing) this.standing = undefined;
        resolve();
      });
    });
  }

  private delete(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    const refusal = sessionRefusal(req.headers, this.initialized, this.sessionId);
    if (refusal !== undefined) return writeRefusal(res, refusal);
    if (this.sessionId !== undefined) this.options.onsessionclosed?.(this.sessionId);
    res.statusCode = 200;
    res.end();
    return this.close();
  }

  private open(): void {
    this.sessionId = this.options.sessionIdGenerator();
    this.initialized = true;
    this.options.onsessioninitialized?.(this.sessionId);
  }

  private endStanding(): void {
    const standing = this.standing;
    if (standing === undefined) return;
    this.standing = undefined;
    standing.stop();
    standing.res.end();
  }
}
