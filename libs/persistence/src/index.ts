export {
  createDataSource,
  DEFAULT_SESSION_TIMEOUTS,
  MIGRATIONS_TABLE,
  type DataSourceConfig,
  type SessionTimeouts,
  type EntityClass,
  type MigrationClass,
} from './data-source.factory';
export { ping, DEFAULT_PING_TIMEOUT_MS, type DatabasePing } from './database-ping.probe';
export { redactDatabaseUrl } from './database-url.redactor';
export {
  validateDatabaseUrl,
  type DatabaseUrlProblem,
  type DatabaseUrlValidation,
} from './database-url.validator';
export { migrationsApplied, pendingMigrations } from './migration-status.query';
export { PersistenceConfigError } from './persistence-config.error';
export { silentPersistenceLogger, type PersistenceLogger } from './persistence.logger';
export { MIGRATION_LOCK_CLASS_ID } from './schema-migration.lock';
export { prepareSchemaAndMigrate } from './schema-migration.runner';
export {
  validateSchemaName,
  type SchemaNameProblem,
  type SchemaNameValidation,
} from './schema-name.validator';
export { pooledQuery, type PooledQuery } from './pooled-query';
export { classifyDatabaseError, type DatabaseErrorClass } from './database-error.classifier';
export {
  ESCAPED_MARKER,
  fromJsonbValue,
  holdsRefusedCharacters,
  jsonArrayText,
  toJsonbArrayText,
  toJsonbText,
  toJsonbValue,
} from './jsonb-text.codec';
export { queryPrepared, type PreparableQueryable } from './prepared-query';
