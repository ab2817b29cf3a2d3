import { DataSource, type EntitySchema, type MigrationInterface } from 'typeorm';
import { validateDatabaseUrl } from './database-url.validator';
import { PersistenceConfigError } from './persistence-config.error';
import { silentPersistenceLogger, type PersistenceLogger } from './persistence.logger';
import { validateSchemaName } from './schema-name.validator';
import { TypeOrmLogAdapter } from './typeorm-log.adapter';

export type MigrationClass = new () => MigrationInterface;
export type EntityClass = new (...args: never[]) => object;

export interface DataSourceConfig {
  url: string;
  schema: string;
  /** Classes, never glob strings: the build transpiles file by file, so globs would not resolve. */
  migrations: readonly MigrationClass[];
  entities?: ReadonlyArray<EntityClass | EntitySchema>;
  /** Shown in pg_stat_activity, so an operator can tell which service holds a lock. */
  applicationName: string;
  poolSize?: number;
  connectTimeoutMs?: number;
  /** Receives driver warnings such as a pooled connection dropped by the server. */
  logger?: PersistenceLogger;
  /** Server-side limits every pooled session gets; see DEFAULT_SESSION_TIMEOUTS. */
  timeouts?: Partial<SessionTimeouts>;
}

export interface SessionTimeouts {
  /** statement_timeout: no query runs longer. */
  readonly statementMs: number;
  /** lock_timeout: no lock (row, table, advisory) is waited for longer. */
  readonly lockMs: number;
  /** idle_in_transaction_session_timeout: a transaction left open by a stalled caller ends. */
  readonly idleInTransactionMs: number;
}

/**
 * A hung query, a lock held by a stuck peer or a transaction a crashed task left open would
 * otherwise hold a pooled connection (and its locks) forever; with these the server ends it
 * and the caller sees an error it can retry.
 */
export const DEFAULT_SESSION_TIMEOUTS: SessionTimeouts = {
  statementMs: 30_000,
  lockMs: 10_000,
  idleInTransactionMs: 60_000,
};

export const MIGRATIONS_TABLE = 'migrations';

const DEFAULT_POOL_SIZE = 10;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/**
 * How the pool keeps its connections. node-postgres closes one idle for 10 s, so a burst after
 * any lull met a pool of new connections: a new PostgreSQL backend loads its catalog caches and
 * each prepared statement again, and bench:session's 300 conversations after a 12 s pause ran
 * at 73 turns/s with the database spending 8.7–9.3 ms of CPU per turn, against 117–133 turns/s
 * and 3.9–4.4 ms when the pool was still warm. Five minutes outlasts a chat's lulls and stays
 * under the idle timeouts of common load balancers and NAT (AWS NLB: 350 s); TCP keep-alive
 * probes keep such a path open meanwhile, and a connection is replaced after 30 minutes so a
 * backend's caches do not grow for ever and a fail-over's new address is picked up. The pool
 * never holds more than `poolSize`, as before; only how long it keeps them changes.
 */
const POOL_KEEPING = {
  idleTimeoutMillis: 300_000,
  keepAlive: true,
  keepAliveInitialDelayMillis: 60_000,
  maxLifetimeSeconds: 1_800,
} as const;

/**
 * A TypeORM data source confined to one schema. Not initialized: the caller decides when
 * to connect and then calls `prepareSchemaAndMigrate`.
 */
export function createDataSource(config: DataSourceConfig): DataSource {
  const url = validateDatabaseUrl(config.url);
  if (!url.ok) throw new PersistenceConfigError('url', url.code, url.reason);
  const schema = validateSchemaName(config.schema);
  if (!schema.ok) throw new PersistenceConfigError('schema', schema.code, schema.reason);
  const logger = config.logger ?? silentPersistenceLogger;
  const timeouts = { ...DEFAULT_SESSION_TIMEOUTS, ...config.timeouts };

  return new DataSource({
    type: 'postgres',
    url: url.url,
    schema: schema.schema,
    applicationName: config.applicationName,
    poolSize: config.poolSize ?? DEFAULT_POOL_SIZE,
    connectTimeoutMS: config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // Unqualified names in hand-written migration SQL and raw queries land in, and only
    // see, this service's schema. The name is validated above; quoting keeps it literal.
    extra: {
      ...POOL_KEEPING,
      options: [
        `-c search_path="${schema.schema}"`,
        `-c statement_timeout=${Math.floor(timeouts.statementMs)}`,
        `-c lock_timeout=${Math.floor(timeouts.lockMs)}`,
        `-c idle_in_transaction_session_timeout=${Math.floor(timeouts.idleInTransactionMs)}`,
      ].join(' '),
    },
    entities: [...(config.entities ?? [])],
    migrations: [...config.migrations],
    migrationsTableName: MIGRATIONS_TABLE,
    // Each migration commits on its own, so one may opt out of a transaction (for
    // CREATE INDEX CONCURRENTLY); the advisory lock already keeps runs from overlapping.
    migrationsTransactionMode: 'each',
    // The schema changes only through reviewed migrations, run explicitly under a lock.
    synchronize: false,
    migrationsRun: false,
    dropSchema: false,
    // gen_random_uuid() is built into PostgreSQL 13+, so no extension has to be created:
    // that needs rights a managed database may not grant, and with search_path confined
    // to one schema an extension installed elsewhere would not be found anyway.
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    logger: new TypeOrmLogAdapter(logger),
    // An idle pooled connection can fail (server restart, failover); pg then replaces it.
    // Without a handler the pool's error event would crash the process.
    poolErrorHandler: (error: unknown) =>
      logger.warn(
        { error: error instanceof Error ? error.message : String(error) },
        'a pooled database connection failed',
      ),
  });
}
