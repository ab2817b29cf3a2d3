import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ServerResponse } from 'node:http';
import type { HttpRefusal } from './mcp-http-rules';

/** A refusal as the SDK's transport words it: a JSON-RPC error with id null. */
export function writeRefusal(res: ServerResponse, refusal: HttpRefusal): void {
  const error: Record<string, unknown> = { code: refusal.code, message: refusal.message };
  if (refusal.data !== undefined) error.data = refusal.data;
  res.writeHead(refusal.status, { 'content-type': 'application/json', ...refusal.headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error, id: null }));
}

/** One JSON answer: the whole exchange in one write, one packet for the agent to wake up for. */
export function writeJson(res: ServerResponse, body: unknown, sessionId: string | undefined): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  res.writeHead(200, headers);
  res.end(JSON.stringify(body));
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
