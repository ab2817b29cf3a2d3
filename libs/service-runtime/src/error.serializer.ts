import pino from 'pino';

/**
 * Error properties that hold values sent elsewhere rather than describe the failure:
 * TypeORM's QueryFailedError copies a query's bound `parameters` (tokens, message text) onto
 * itself. What the platform SDKs attach (request URLs, headers) is kept, and scrubbed with
 * the rest of the line.
 */
const DROPPED_KEYS = ['parameters'];

/** pino's standard error serializer, minus the values above, in nested errors too. */
export function serializeError(error: unknown): unknown {
  const serialized: unknown = pino.stdSerializers.err(error as Error);
  if (serialized === error || typeof serialized !== 'object' || serialized === null) {
    return serialized;
  }
  drop(serialized as Record<string, unknown>, Object.getPrototypeOf(serialized) as object);
  return serialized;
}

// Only the serializer's own fresh objects are edited: a plain object an error points at
// belongs to its caller, and is left alone.
function drop(serialized: Record<string, unknown>, prototype: object): void {
  for (const key of DROPPED_KEYS) delete serialized[key];
  for (const value of Object.values(serialized)) {
    if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === prototype) {
      drop(value as Record<string, unknown>, prototype);
    }
  }
}
