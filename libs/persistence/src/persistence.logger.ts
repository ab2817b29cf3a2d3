/**
 * The slice of a pino logger this library writes to; a pino `Logger` satisfies it, and a
 * test can pass a recorder.
 */
export interface PersistenceLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export const silentPersistenceLogger: PersistenceLogger = {
  info: () => undefined,
  warn: () => undefined,
};
