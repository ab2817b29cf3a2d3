/**
 * An object as JSON.parse makes it: not null, not an array, Object's own prototype. The
 * zod-free checks of plain JSON-RPC messages (the gateway's requests, the upstreams' answers)
 * start here, so they say yes only to what the SDK's schemas would accept.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}
