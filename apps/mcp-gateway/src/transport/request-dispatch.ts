import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/** The SDK Protocol's own request entry point, which its message router calls for a request. */
type RequestEntry = (request: JSONRPCRequest, extra?: unknown) => void;

/**
 * Hands each request the transport delivers straight to the SDK Protocol's request handling,
 * skipping the router the Protocol puts on `transport.onmessage` at connect. That router tells
 * a message's kind by running it through zod schemas in turn — result response, error response,
 * then request — so every request costs two failed parses, zod's dearest path (issues built,
 * then dropped): in the c16 profile about 3% of the gateway's CPU per allowed call, plus the
 * garbage. The transports the gateway serves (its node:http one, the SDK's stdio one) have each
 * already validated every message against JSONRPCMessageSchema (the node:http one by a check
 * without zod for a plain request, which accepts only what the schema accepts: isPlainRequest),
 * whose four branches are strict and exclude one another; so a delivered message with a method and an id and neither result nor
 * error IS a request, and the router would have sent it to the same place. Everything else
 * (responses to the gateway's own requests, notifications) still takes the SDK's router.
 * Nothing is checked less: the request's schema check, the handler's, and the answer are the
 * SDK's. Must run after `server.connect(transport)`. If a later SDK has no such entry point,
 * the SDK's router is left as it is.
 */
export function routeRequestsDirectly(server: Server, transport: Transport): void {
  const entry = (server as unknown as { _onrequest?: RequestEntry })._onrequest;
  const sdkRouter = transport.onmessage;
  if (typeof entry !== 'function' || sdkRouter === undefined) return;
  const onrequest = entry.bind(server);
  transport.onmessage = (message, extra) => {
    if (isValidatedRequest(message)) onrequest(message, extra);
    else sdkRouter(message, extra);
  };
}

/** For a message already validated as a JSON-RPC message: the strict schemas leave only a request. */
function isValidatedRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message && !('result' in message) && !('error' in message);
}
