import type { Logger as TypeOrmLogger } from 'typeorm';
import type { PersistenceLogger } from './persistence.logger';

/**
 * Passes TypeORM's warnings to the service's structured logger and drops the rest.
 * TypeORM's own loggers write plain text to the console, and its query and query-error
 * lines carry bound parameters, which may be tokens or message text. Failures still reach
 * the caller as exceptions, and migrations are logged by `prepareSchemaAndMigrate`.
 */
export class TypeOrmLogAdapter implements TypeOrmLogger {
  constructor(private readonly logger: PersistenceLogger) {}

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.logger.warn({ component: 'typeorm' }, String(message));
  }

  logQuery(): void {}

  logQueryError(): void {}

  logQuerySlow(): void {}

  logSchemaBuild(): void {}

  logMigration(): void {}
}
