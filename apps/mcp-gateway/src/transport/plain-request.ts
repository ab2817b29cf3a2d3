import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { isPlainObject } from '@tollgate/mcp-upstream';

const ENVELOPE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * Whether a parsed POST message is a plain JSON-RPC request that the SDK's JSONRPCMessageSchema
 * accepts as it stands, decided without zod: `jsonrpc: "2.0"`, an id that is a string or a safe
 * integer, a string method, no other key, and params absent or an object without `_meta` (whose
 * schema this does not repeat) and without an own `__proto__` (which the schema's copy drops).
 * Nearly every tools/call is one, and its schema parse was ~2% of the gateway's CPU per allowed
 * call, before the handler parses the same request against CallToolRequestSchema. Anything
 * else is false, and the SDK's schema decides it as before: this only ever says yes where the
 * schema says yes, with the message the schema would have returned (its spec checks both).
 */
export function isPlainRequest(message: unknown): message is JSONRPCRequest {
  if (!isPlainObject(message)) return false;
  let keys = 0;
  for (const key in message) {
    if (!ENVELOPE_KEYS.has(key)) return false;
    keys += 1;
  }
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return false;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return false;
  if (!('params' in message)) return keys === 3;
  return (
    keys === 4 &&
    isPlainObject(params) &&
    !Object.hasOwn(params, '_meta') &&
    !Object.hasOwn(params, '__proto__')
  );
}
