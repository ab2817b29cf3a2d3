// The leader's components as Nest providers, in a module SessionRuntime loads (LazyModuleLoader)
// only once this instance holds the leader lock: a standby never builds a store, a relay or
// a poller, so nothing of it can write. Nest runs no lifecycle hooks in a lazily loaded
// module, so SessionRuntime, which holds the gate, starts and stops ActiveSession itself.
import { type DynamicModule, Module } from '@nestjs/common';
import { Subjects } from '@tollgate/protocol';
import { NatsClient, SERVICE_CONFIG, SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { AuditSealerPoller } from '../audit/audit-sealer.poller';
import { HandleCommand } from '../commands/handle-command.usecase';
import { failpointFor } from '../journal/failpoint';
import { PromptTimerRepository } from '../journal/prompt-timer.repository';
import { SessionStore } from '../journal/session-store';
import { OutboxRelay } from '../outbox/outbox-relay.service';
import type { SessionServiceConfig } from '../session-service.config';
import type { SessionDeps } from '../session/domain/session-deps';
import { ActiveSession } from './active-session.service';
import {
  ACTIVE_CLOCK,
  ACTIVE_DATA_SOURCE,
  ACTIVE_LOGGER,
  SESSION_DEPS,
} from './active-session.tokens';

@Module({})
export class ActiveSessionModule {
  /** The data source is ready and `deps` are the session service's own (traced). */
  static forLeader(dataSource: DataSource, deps: SessionDeps): DynamicModule {
    return {
      module: ActiveSessionModule,
      providers: [
        { provide: ACTIVE_DATA_SOURCE, useValue: dataSource },
        { provide: SESSION_DEPS, useValue: deps },
        {
          provide: ACTIVE_LOGGER,
          useFactory: (logger: Logger) => logger.child({ component: 'session-runtime' }),
          inject: [SERVICE_LOGGER],
        },
        {
          provide: Subjects,
          useFactory: (config: SessionServiceConfig) =>
            new Subjects(config.TOLLGATE_SUBJECT_PREFIX),
          inject: [SERVICE_CONFIG],
        },
        {
          provide: ACTIVE_CLOCK,
          // TOLLGATE_TEST_CLOCK_OFFSET_MS is test-only: unset, this is the wall clock.
          useFactory: (config: SessionServiceConfig) => {
            const offsetMs = config.TOLLGATE_TEST_CLOCK_OFFSET_MS ?? 0;
            return () => new Date(Date.now() + offsetMs);
          },
          inject: [SERVICE_CONFIG],
        },
        {
          provide: SessionStore,
          useFactory: (
            config: SessionServiceConfig,
            source: DataSource,
            subjects: Subjects,
            clock: () => Date,
          ) =>
            new SessionStore(source, subjects, outboxChannel(config), {
              failpoint: failpointFor(config.TOLLGATE_FAILPOINT),
              now: () => clock().toISOString(),
              sessionGrantTtlMs: config.TOLLGATE_SESSION_GRANT_TTL,
              historyTurns: config.MODEL_HISTORY_TURNS,
            }),
          inject: [SERVICE_CONFIG, ACTIVE_DATA_SOURCE, Subjects, ACTIVE_CLOCK],
        },
        {
          provide: OutboxRelay,
          useFactory: (
            config: SessionServiceConfig,
            source: DataSource,
            logger: Logger,
            nats: NatsClient,
          ) =>
            new OutboxRelay({
              dataSource: source,
              databaseUrl: config.DATABASE_URL,
              channel: outboxChannel(config),
              publisher: () => nats.publisher,
              logger,
            }),
          inject: [SERVICE_CONFIG, ACTIVE_DATA_SOURCE, ACTIVE_LOGGER, NatsClient],
        },
        {
          // G4: decisions commit their audit entries unchained; the leader links them in order.
          provide: AuditSealerPoller,
          useFactory: (config: SessionServiceConfig, source: DataSource, logger: Logger) =>
            new AuditSealerPoller({
              database: source,
              logger,
              intervalMs: config.TOLLGATE_AUDIT_SEAL_MS,
            }),
          inject: [SERVICE_CONFIG, ACTIVE_DATA_SOURCE, ACTIVE_LOGGER],
        },
        {
          provide: HandleCommand,
          useFactory: (store: SessionStore, deps: SessionDeps) => new HandleCommand(store, deps),
          inject: [SessionStore, SESSION_DEPS],
        },
        {
          provide: PromptTimerRepository,
          useFactory: (source: DataSource) => new PromptTimerRepository(source),
          inject: [ACTIVE_DATA_SOURCE],
        },
        ActiveSession,
      ],
    };
  }
}

function outboxChannel(config: SessionServiceConfig): string {
  return `outbox_${config.DATABASE_SCHEMA}`;
}
