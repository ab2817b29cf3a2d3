import { Agent as HttpAgent, request as httpRequest, STATUS_CODES } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** The subset of `fetch` the platform SDKs and the model client call: a URL and a RequestInit. */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface AgentFetchOptions {
  /** Sockets per origin; default 64, above what one replica's handlers hold at once. */
  readonly maxSockets?: number;
  /** Where a request with a body only fetch can send goes (FormData, a stream); default fetch. */
  readonly fallback?: FetchLike;
}

/**
 * Idle sockets are closed after this long, or sooner when the server says it keeps them for
 * less (Keep-Alive: timeout=…, which Node's agent reads only when a timeout is set): a socket
 * the server closes while idle must not take the next call.
 */
const IDLE_SOCKET_MS = 4_000;

/**
 * `fetch` for the platform SDKs and the session service's model client over node:http with a
 * keep-alive Agent (D6). Node's fetch (undici) costs about 0.9 ms of CPU per call more than
 * node:http doing the same call on the same socket (bench:binding's two floors): web streams,
 * a Request and a Response object per call, each body read through a stream reader. The platform and model calls are JSON requests,
 * read whole, so none of that is needed. The answer is read completely before it resolves;
 * an abort (the SDK's deadline) rejects with the signal's reason, as fetch does, so a timeout
 * is still a TimeoutError to every failure classifier. A body it cannot send as bytes goes
 * to `fallback`.
 */
export function agentFetch(options: AgentFetchOptions = {}): FetchLike {
  const maxSockets = options.maxSockets ?? 64;
  const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets, timeout: IDLE_SOCKET_MS }),
    https: new HttpsAgent({ keepAlive: true, maxSockets, timeout: IDLE_SOCKET_MS }),
  };
  const fallback = options.fallback ?? ((input, init) => fetch(input, init));
  return (input, init = {}) => {
    const body = bytesOf(init.body);
    const url = typeof input === 'string' ? new URL(input) : input;
    if (body === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      return fallback(input, init);
    }
    const secure = url.protocol === 'https:';
    return send(url, init, body, secure ? agents.https : agents.http, secure);
  };
}

/**
 * What can be sent as it is: nothing, text, bytes, form fields; undefined for anything else.
 * Text stays text: node:http joins a text body to the request's head in one buffer, where
 * bytes go as a second buffer of the socket's writev, after a copy (Buffer.from) of their own.
 */
function bytesOf(body: RequestInit['body']): Buffer | string | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.length);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return undefined;
}

function send(
  url: URL,
  init: RequestInit,
  body: Buffer | string | null,
  agent: HttpAgent,
  secure: boolean,
): Promise<Response> {
  const { signal } = init;
  if (signal?.aborted) return Promise.reject(reasonOf(signal));
  const headers = headersOf(init.headers);
  if (body !== null) {
    headers['content-length'] = String(
      typeof body === 'string' ? Buffer.byteLength(body) : body.length,
    );
  }
  const requestOptions: RequestOptions = { method: init.method ?? 'GET', headers, agent };
  return new Promise<Response>((resolve, reject) => {
    const req = (secure ? httpsRequest : httpRequest)(url, requestOptions, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(new AgentResponse(res, Buffer.concat(chunks)) as unknown as Response);
      });
      res.once('error', fail);
    });
    function fail(error: Error): void {
      signal?.removeEventListener('abort', onAbort);
      // As fetch says it: the network's own error is the cause.
      reject(new TypeError('fetch failed', { cause: error }));
    }
    function onAbort(): void {
      req.destroy();
      reject(reasonOf(signal));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    req.once('error', (error) => {
      if (!signal?.aborted) fail(error);
    });
    req.end(body ?? undefined);
  });
}

/** As fetch rejects: with the signal's reason (AbortSignal.timeout's is a TimeoutError). */
function reasonOf(signal: AbortSignal | null | undefined): Error {
  const reason: unknown = signal?.reason;
  // By shape: a DOMException from another realm (a test's vm) is no instance of this Error.
  return typeof reason === 'object' && reason !== null && 'name' in reason
    ? (reason as Error)
    : new DOMException('This operation was aborted', 'AbortError');
}

function headersOf(given: RequestInit['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  if (given === undefined) return headers;
  if (given instanceof Headers || Array.isArray(given)) {
    for (const [key, value] of given instanceof Headers ? given.entries() : given) {
      headers[key.toLowerCase()] = value;
    }
    return headers;
  }
  for (const [key, value] of Object.entries(given)) {
    if (value !== undefined) headers[key.toLowerCase()] = String(value);
  }
  return headers;
}

/** The parts of a fetch Response the SDKs read, over an answer already read whole. */
class AgentResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: Headers;
  readonly url: string;
  readonly redirected = false;
  readonly type = 'basic';
  readonly body = null;
  bodyUsed = false;

  constructor(
    res: IncomingMessage,
    private readonly bytes: Buffer,
  ) {
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? STATUS_CODES[this.status] ?? '';
    this.ok = this.status >= 200 && this.status < 300;
    this.url = '';
    const headers = new Headers();
    const raw = res.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
    this.headers = headers;
  }

  async text(): Promise<string> {
    return this.consume().toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.consume();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer;
  }

  private consume(): Buffer {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.bodyUsed = true;
    return this.bytes;
  }
}
