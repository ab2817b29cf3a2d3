import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The node request as a Web Request, for the SDK's web-standard transport. Without its body:
 * the gateway reads and parses a POST's body itself and hands the transport the parsed value,
 * and a body here would cost every call a web stream nothing reads.
 */
export function toWebRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method: req.method,
    headers,
  });
}

/**
 * A stream with nothing to send this long gets its status line alone. Node holds the status
 * line back until the first body byte, and a GET's standalone SSE stream, or a held call
 * without progress, may carry none for minutes: its agent would wait that long for 200.
 */
const LONE_STATUS_AFTER_MS = 100;

/** Streams a Web Response (an SSE stream included) to the node response as it is produced. */
export async function sendWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  // Most answers are ready sooner: status line, event and end then leave in one write, one
  // packet for the agent to wake up for instead of three.
  const loneStatus = setTimeout(() => res.flushHeaders(), LONE_STATUS_AFTER_MS);
  let corked = false;
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  // A client that goes away cancels the stream, which the transport sees and cleans up after.
  res.once('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      clearTimeout(loneStatus);
      if (!corked) {
        // Held until the microtasks have run: an answer's stream closes right after its event.
        res.cork();
        corked = true;
        setImmediate(() => {
          if (!corked) return;
          corked = false;
          res.uncork();
        });
      }
      res.write(value);
    }
  } catch {
    // Cancelled because the client left: nothing more to send.
  }
  clearTimeout(loneStatus);
  corked = false; // end() uncorks the connection fully
  res.end();
}

/** Reads a request body up to `limit` bytes; undefined when it is larger. */
export async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
