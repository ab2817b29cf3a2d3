import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { IncomingHttpHeaders } from 'node:http';
import { isPlainRequest } from './plain-request';

/**
 * The streamable HTTP rules the SDK's transport applies, as pure checks over the node request's
 * headers and parsed body: the gateway serves `/mcp` from node:http directly (a web
 * Request/Response per POST was most of its CPU per call), so it must say no exactly where
 * the SDK said no, with the same status and JSON-RPC code, for agents written against either.
 */
export interface HttpRefusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly data?: unknown;
}

/** A header's value as the SDK's web Headers read it: repeated ones joined. */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The SDK's own cap: a batch is answered on one stream, and one POST must not fan out without end. */
const MAX_BATCH_SIZE = 100;

const refuse = (status: number, code: number, message: string): HttpRefusal => ({
  status,
  code,
  message,
});

export const SESSION_NOT_FOUND = refuse(404, -32001, 'Session not found');

export const METHOD_NOT_ALLOWED: HttpRefusal = {
  ...refuse(405, -32000, 'Method not allowed.'),
  headers: { allow: 'GET, POST, DELETE' },
};

export const ONE_STANDING_STREAM = refuse(
  409,
  -32000,
  'Conflict: Only one SSE stream is allowed per session',
);

/** A POST's messages, validated, or why the POST is refused before any reaches the server. */
export type PostMessages =
  | { readonly kind: 'messages'; readonly messages: JSONRPCMessage[] }
  | { readonly kind: 'refused'; readonly refusal: HttpRefusal };

export function postMessages(headers: IncomingHttpHeaders, body: unknown): PostMessages {
  const accept = headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return refused(
      406,
      -32000,
      'Not Acceptable: Client must accept both application/json and text/event-stream',
    );
  }
  if (!isJsonContentType(headers['content-type'])) {
    return refused(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
  }
  if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
    return refused(
      400,
      -32600,
      `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`,
    );
  }
  const raw = Array.isArray(body) ? body : [body];
  const messages: JSONRPCMessage[] = [];
  for (const message of raw) {
    // A plain request is one the schema would take as it is (see isPlainRequest).
    if (isPlainRequest(message)) {
      messages.push(message);
      continue;
    }
    // The SDK's own schema, once per message: the server trusts the shape from here on.
    const parsed = JSONRPCMessageSchema.safeParse(message);
    if (!parsed.success) return refused(400, -32700, 'Parse error: Invalid JSON-RPC message');
    messages.push(parsed.data);
  }
  return { kind: 'messages', messages };
}

function refused(status: number, code: number, message: string): PostMessages {
  return { kind: 'refused', refusal: refuse(status, code, message) };
}

/**
 * Whether a validated message is a request. The schema has already told the four kinds
 * apart; a method with an id is a request (the SDK's isJSONRPCRequest re-parses it per call).
 */
export function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

export function isResponse(message: JSONRPCMessage): boolean {
  return 'result' in message || 'error' in message;
}

export function isInitialize(message: JSONRPCMessage): message is JSONRPCRequest {
  return isRequest(message) && message.method === 'initialize';
}

/** Why an initialize cannot open this session: it is open already, or is not alone. */
export function initializeRefusal(
  initialized: boolean,
  messages: readonly JSONRPCMessage[],
): HttpRefusal | undefined {
  if (initialized) return refuse(400, -32600, 'Invalid Request: Server already initialized');
  if (messages.length > 1) {
    return refuse(400, -32600, 'Invalid Request: Only one initialization request is allowed');
  }
  return undefined;
}

/** Why a request on an existing session is refused: the session or the protocol version. */
export function sessionRefusal(
  headers: IncomingHttpHeaders,
  initialized: boolean,
  sessionId: string | undefined,
): HttpRefusal | undefined {
  if (!initialized) return refuse(400, -32000, 'Bad Request: Server not initialized');
  const given = headerOf(headers, 'mcp-session-id');
  if (!given) return refuse(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
  if (given !== sessionId) return SESSION_NOT_FOUND;
  const version = headerOf(headers, 'mcp-protocol-version');
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
    return refuse(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${supported})`,
    );
  }
  return undefined;
}

/** A GET opens the standing SSE stream, so its agent must take one. */
export function standingStreamRefusal(headers: IncomingHttpHeaders): HttpRefusal | undefined {
  return headers.accept?.includes('text/event-stream')
    ? undefined
    : refuse(406, -32000, 'Not Acceptable: Client must accept text/event-stream');
}
