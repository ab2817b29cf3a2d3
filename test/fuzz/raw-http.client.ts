import { Agent, request } from 'node:http';

/** One request exactly as a hostile sender would write it: any headers, any bytes. */
export interface RawRequest {
  /** POST unless given. */
  readonly method?: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  /** Sent with `Transfer-Encoding: chunked` and no length, so the server must count. */
  readonly chunked?: boolean;
  /** Resolve on the status line and drop the connection: for a stream that never ends (SSE). */
  readonly untilHeaders?: boolean;
}

export interface RawResponse {
  readonly status: number;
  readonly body: string;
}

const CHUNK_BYTES = 64 * 1024;
/** Answers are read only this far: a refusal's reason fits, and no answer is unbounded. */
const MAX_ANSWER_BYTES = 4096;

/**
 * A keep-alive HTTP/1.1 client with a fixed number of sockets, so tens of thousands of
 * requests reuse a few connections instead of exhausting ports. Node's fetch cannot send a
 * chunked body of its own choosing or a content type it dislikes, hence node:http.
 */
export class RawHttpClient {
  private readonly agent: Agent;
  /** Parsed once: a `new URL` per request was a measurable share of the client's CPU. */
  private readonly host: string;
  private readonly port: number;

  constructor(
    private readonly baseUrl: string,
    sockets: number,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets });
    const url = new URL(baseUrl);
    this.host = url.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(url.port || 80);
  }

  /**
   * The request target as `new URL(path, baseUrl)` makes it: a plain absolute path is already
   * that; anything else (a hostile query, dot segments, bytes to escape) goes through URL.
   */
  private target(path: string): string {
    if (/^\/(?!\/)[\w\-/]*$/.test(path)) return path;
    const url = new URL(path, this.baseUrl);
    return `${url.pathname}${url.search}`;
  }

  send(raw: RawRequest, timeoutMs = 15_000): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...raw.headers };
      if (!raw.chunked) headers['content-length'] = String(raw.body.length);
      const req = request(
        {
          host: this.host,
          port: this.port,
          path: this.target(raw.path),
          method: raw.method ?? 'POST',
          agent: this.agent,
          headers,
          timeout: timeoutMs,
        },
        (res) => {
          if (raw.untilHeaders) {
            resolve({ status: res.statusCode ?? 0, body: '' });
            req.destroy();
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
            size += chunk.length;
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8').slice(0, MAX_ANSWER_BYTES),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', reject);
      // The server may answer (413, 415) before the body is sent; the rest still goes out so
      // the connection stays in step for the next request.
      // A small body goes out with the headers in one write.
      if (raw.body.length <= CHUNK_BYTES) {
        req.end(raw.body);
        return;
      }
      for (let at = 0; at < raw.body.length; at += CHUNK_BYTES) {
        req.write(raw.body.subarray(at, at + CHUNK_BYTES));
      }
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Runs `work` over `items` with at most `concurrency` in flight, in order of start. */
export async function inParallel<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index], index);
    }
  });
  await Promise.all(lanes);
  return results;
}
