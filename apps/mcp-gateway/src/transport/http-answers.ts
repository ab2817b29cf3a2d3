import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ServerResponse } from 'node:http';
import type { HttpRefusal } from './mcp-http-rules';

/** A refusal as the SDK's transport words it: a JSON-RPC error with id null. */
export function writeRefusal(res: ServerResponse, refusal: HttpRefusal): void {
  const error: Record<string, unknown> = { code: refusal.code, message: refusal.message };
  if (refusal.data !== undefined) error.data = refusal.data;
  endJson(res, refusal.status, JSON.stringify({ jsonrpc: '2.0', error, id: null }), {
    ...refusal.headers,
  });
}

/** One JSON answer: the whole exchange in one write, one packet for the agent to wake up for. */
export function writeJson(res: ServerResponse, body: unknown, sessionId: string | undefined): void {
  const headers: Record<string, string> = {};
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  endJson(res, 200, JSON.stringify(body), headers);
}

/**
 * A whole JSON body with its Content-Length. Without one, a writeHead before end() makes Node
 * answer chunked: the body went out as three pieces in a writev, and every agent's HTTP
 * parser had to take the chunk framing apart, for a body whose length was known all along.
 */
export function endJson(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(Buffer.byteLength(text));
  res.writeHead(status, headers);
  res.end(text);
}

/**
 * Opens an SSE stream and sends its status line at once: Node holds the status line back
 * until the first body byte, and a standing GET stream, or a held call without progress, may
 * carry none for minutes; its agent would wait that long for 200.
 */
export function openSse(res: ServerResponse, sessionId: string | undefined): void {
  const headers: Record<string, string> = {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  res.writeHead(200, headers);
  res.flushHeaders();
}

export function writeSseEvent(res: ServerResponse, message: JSONRPCMessage): void {
  res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/** The SDK's interval: proxies drop an SSE stream that says nothing for long. */
const KEEP_ALIVE_MS = 15_000;

/** Comments on an open SSE stream so it outlives idle timeouts on the way; stop() ends them. */
export function keepAlive(res: ServerResponse): () => void {
  const timer = setInterval(() => res.write(': keepalive\n\n'), KEEP_ALIVE_MS);
  timer.unref();
  return () => clearInterval(timer);
}
