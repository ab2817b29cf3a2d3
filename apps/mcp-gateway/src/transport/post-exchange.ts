import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ServerResponse } from 'node:http';
import { keepAlive, openSse, writeJson, writeSseEvent } from './http-answers';
import { isResponse } from './mcp-http-rules';

/** Where the transport sends what the server says about one POST's requests. */
export interface Answerer {
  deliver(message: JSONRPCMessage): void;
  /** The session closed: nothing more will come. */
  end(): void;
}

/**
 * A call answered this soon goes back as one JSON body; one still open then becomes an SSE
 * stream with its status line sent, so a held call's agent (and every proxy between) sees the
 * gateway alive while a human decides, and keep-alives carry it past idle timeouts.
 */
const STREAM_AFTER_MS = 100;

/**
 * One POST's requests, answered on its ServerResponse. JSON when the answers are all there is
 * to say and come quickly (nearly every call: one write, no stream); SSE from the moment there
 * is more (a progress notification, a request the server makes on the call's behalf) or the
 * answers are slow. Both are what the spec lets a server choose for a client accepting both.
 */
export class PostExchange implements Answerer {
  /** Settles when the exchange is over: answered, or its agent has gone. */
  readonly done: Promise<void>;
  private readonly answers = new Map<RequestId, JSONRPCMessage>();
  private streaming = false;
  private over = false;
  private stopKeepAlive: (() => void) | undefined;
  private readonly streamTimer: NodeJS.Timeout | undefined;
  private settle!: () => void;

  constructor(
    private readonly res: ServerResponse,
    private readonly ids: readonly RequestId[],
    private readonly sessionId: string | undefined,
    streamNow: boolean,
    private readonly onOver: (ids: readonly RequestId[]) => void,
  ) {
    this.done = new Promise((resolve) => (this.settle = resolve));
    if (streamNow) this.stream();
    else this.streamTimer = setTimeout(() => this.stream(), STREAM_AFTER_MS);
    // An agent that leaves takes its answers with it; the server's later ones are dropped.
    res.once('close', () => this.finish());
  }

  deliver(message: JSONRPCMessage): void {
    if (this.over) return;
    if (!isResponse(message)) {
      this.stream();
      writeSseEvent(this.res, message);
      return;
    }
    const id = (message as { id: RequestId }).id;
    this.answers.set(id, message);
    if (this.streaming) writeSseEvent(this.res, message);
    if (this.answers.size < this.ids.length) return;
    if (this.streaming) this.res.end();
    else {
      // A batch of one is answered with the object itself, as the SDK's JSON mode does.
      const body =
        this.ids.length === 1 ? message : this.ids.map((requestId) => this.answers.get(requestId));
      writeJson(this.res, body, this.sessionId);
    }
    this.finish();
  }

  end(): void {
    if (this.over) return;
    // An empty stream, as the SDK ends a POST's stream when its session closes.
    this.stream();
    this.res.end();
    this.finish();
  }

  private stream(): void {
    if (this.streaming || this.over) return;
    this.streaming = true;
    clearTimeout(this.streamTimer);
    openSse(this.res, this.sessionId);
    this.stopKeepAlive = keepAlive(this.res);
  }

  private finish(): void {
    if (this.over) return;
    this.over = true;
    clearTimeout(this.streamTimer);
    this.stopKeepAlive?.();
    this.onOver(this.ids);
    this.settle();
  }
}
