import type { IncomingMessage, ServerResponse } from 'node:http';

/** The node request as a Web Request, for the SDK's web-standard transport. */
export function toWebRequest(req: IncomingMessage, body: string | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method: req.method,
    headers,
    body: body === undefined || req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
  });
}

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
  // Node holds the status line back until the first body byte; an SSE stream (a GET's
  // standalone stream) may carry none for minutes, and its agent would wait that long for 200.
  res.flushHeaders();
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  // A client that goes away cancels the stream, which the transport sees and cleans up after.
  res.once('close', () => void reader.cancel().catch(() => undefined));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // Cancelled because the client left: nothing more to send.
  }
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
