import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from './plain-object';

/** The SDK Protocol's own response entry point, which its message router calls for a response. */
type ResponseEntry = (response: JSONRPCResultResponse) => void;

/**
 * Hands each plain result response (an upstream's answer to a call) straight to the SDK
 * Protocol's response handling, skipping the router the Protocol puts on `transport.onmessage`
 * at connect. That router checks a message against JSONRPCResultResponseSchema before handing it
 * to `_onresponse`, which checks it against the same schema again: one zod parse of the envelope
 * per answer, ~1% of the gateway's CPU per allowed call, that could refuse nothing the next one
 * lets through. A message isPlainResultResponse says yes to is one that schema accepts, so the
 * router would have sent it, the same object, to the same place; everything else (requests and
 * notifications from the upstream, errors, anything odd) still takes the SDK's router, which
 * reports a message matching no schema as before. The result is still parsed against the call's
 * result schema. Must run after `client.connect(transport)`; a later SDK without the entry point
 * keeps its router.
 */
export function routeResponsesDirectly(client: Client, transport: Transport): void {
  const entry = (client as unknown as { _onresponse?: ResponseEntry })._onresponse;
  const sdkRouter = transport.onmessage;
  if (typeof entry !== 'function' || sdkRouter === undefined) return;
  const onresponse = entry.bind(client);
  transport.onmessage = (message, extra) => {
    if (isPlainResultResponse(message)) onresponse(message);
    else sdkRouter(message, extra);
  };
}

/**
 * Whether a parsed message is a result response that JSONRPCResultResponseSchema accepts,
 * decided without zod: `jsonrpc: "2.0"`, an id that is a string or a safe integer, a result that
 * is an object without `_meta` (whose schema this does not repeat), and no other key. False
 * leaves the message to the schemas.
 */
export function isPlainResultResponse(message: unknown): message is JSONRPCResultResponse {
  if (!isPlainObject(message)) return false;
  let keys = 0;
  for (const key in message) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') return false;
    keys += 1;
  }
  const { jsonrpc, id, result } = message;
  return (
    keys === 3 &&
    jsonrpc === '2.0' &&
    (typeof id === 'string' || Number.isSafeInteger(id)) &&
    isPlainObject(result) &&
    !Object.hasOwn(result, '_meta')
  );
}
