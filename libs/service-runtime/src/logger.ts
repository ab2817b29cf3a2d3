import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';
import { serializeError } from './error.serializer';
import { createSecretScrubber } from './secret-scrubber';

/**
 * JSON logs on stdout. Secrets never reach a log: nothing logs config values wholesale,
 * these paths are censored should a payload carry one, and every finished line is scrubbed
 * of the service's configured secrets and of secret-shaped strings (a token inside a URL or
 * an error message is out of reach of path redaction).
 */
const REDACTED_PATHS = [
  'password',
  'token',
  'secret',
  'authorization',
  '*.password',
  '*.token',
  '*.secret',
  '*.authorization',
  'headers.authorization',
  'headers["x-slack-signature"]',
];

export interface LoggerOptions {
  /** Values censored wherever they appear: see `configuredSecrets`. */
  readonly secrets?: Iterable<string>;
  /** Where lines go; stdout when absent. */
  readonly destination?: DestinationStream;
}

export function createLogger(service: string, level: string, options: LoggerOptions = {}): Logger {
  const scrub = createSecretScrubber(options.secrets ?? []);
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: serializeError },
      formatters: { level: (label) => ({ level: label }) },
      hooks: { streamWrite: scrub },
    },
    options.destination,
  );
}

/** Routes NestJS's own framework messages into the same structured log. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
