import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import {
  createDataSource,
  type MigrationClass,
  ping,
  prepareSchemaAndMigrate,
} from '@tollgate/persistence';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { BaseConfig, ServiceName } from './base-config';
import { ReadinessService } from './readiness.service';
import { retryUntilStopped } from './startup-retry';
import { SERVICE_CONFIG, SERVICE_LOGGER } from './tokens';

export const DATABASE_MIGRATIONS = Symbol('DATABASE_MIGRATIONS');

/**
 * Pooled connections per service when `DATABASE_POOL_SIZE` is unset. The session-service admits
 * its decisions through a gate with no deadline (connection-gate.ts), so a smaller pool only
 * queues them, and every connection it opens costs its database a new backend that loads its
 * catalog caches and prepared statements again: 300 conversations on a just-started service
 * opened 34 of 40 and its database spent 7.0–8.9 ms of CPU per turn, against 4.0–4.7 ms with a
 * pool of 12 (68–80 against 89–106 turns/s; bench:session on 2 cores). The others take a
 * connection per handler in flight from the pool's own queue, whose wait ends in an error
 * after the connect timeout, so they keep room for a burst.
 */
export const DEFAULT_POOL_SIZES: Readonly<Record<ServiceName, number>> = {
  'session-service': 12,
  'slack-binding': 40,
  'discord-binding': 40,
  'mattermost-binding': 40,
  'approval-api': 40,
};

/**
 * The service's TypeORM data source in its own schema. Connects and migrates in the
 * background; readiness holds until the migrations are applied and the server answers.
 */
@Injectable()
export class DatabaseClient implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly dataSource: DataSource;
  private migrated = false;
  private stopped = false;
  private readonly ready: Promise<DataSource>;
  private resolveReady!: (value: DataSource) => void;
  private readonly logger: Logger;

  constructor(
    @Inject(SERVICE_CONFIG) config: BaseConfig,
    @Inject(SERVICE_LOGGER) logger: Logger,
    @Inject(DATABASE_MIGRATIONS) migrations: readonly MigrationClass[],
    readiness: ReadinessService,
  ) {
    this.logger = logger.child({ component: 'database' });
    this.dataSource = createDataSource({
      url: config.DATABASE_URL,
      schema: config.DATABASE_SCHEMA,
      migrations,
      applicationName: config.service,
      // A decision holds a connection only for a short transaction (never across a model
      // call or a tool run), while its grants look-up may take another.
      poolSize: config.DATABASE_POOL_SIZE ?? DEFAULT_POOL_SIZES[config.service],
      logger: this.logger,
      timeouts: {
        statementMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
        lockMs: config.DATABASE_LOCK_TIMEOUT_MS,
        idleInTransactionMs: config.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      },
    });
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
    readiness.register({
      name: 'database',
      check: async () => this.migrated && (await ping(this.dataSource)).ok,
    });
  }

  onApplicationBootstrap(): void {
    void this.start();
  }

  whenReady(): Promise<DataSource> {
    return this.ready;
  }

  private async start(): Promise<void> {
    const done = await retryUntilStopped(
      'connecting to PostgreSQL and migrating',
      async () => {
        if (!this.dataSource.isInitialized) await this.dataSource.initialize();
        return prepareSchemaAndMigrate(this.dataSource, this.logger);
      },
      { logger: this.logger, stopped: () => this.stopped },
    );
    if (!done) return;
    this.migrated = true;
    this.resolveReady(this.dataSource);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}
