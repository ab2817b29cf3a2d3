import {
  type ClassProvider,
  type DynamicModule,
  type ExistingProvider,
  type FactoryProvider,
  Module,
  type ValueProvider,
} from '@nestjs/common';
import { type Platform, Subjects } from '@tollgate/protocol';
import {
  type BaseConfig,
  DatabaseClient,
  MetricsService,
  NatsClient,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { BindingOutputConsumer } from './binding-output.consumer';
import { BINDING_CORE_OPTIONS, COMMAND_PUBLISHER, REPLICA_ID } from './binding-core.tokens';
import type { BindingCoreSettings } from './binding-core.settings';
import type { CommandPublisher } from './inbound/command-publisher.port';
import { ForwardClick } from './inbound/forward-click.usecase';
import { OpenEditForm } from './inbound/open-edit-form.usecase';
import { ForwardMessage } from './inbound/forward-message.usecase';
import { HasSession } from './inbound/has-session.query';
import { JetStreamCommandPublisher } from './inbound/jetstream-command.publisher';
import { DeliveredOutputsRepository } from './journal/delivered-outputs.repository';
import { KnownSessionsRepository } from './journal/known-sessions.repository';
import { PromptJournalRepository } from './journal/prompt-journal.repository';
import { HandleOutput } from './outputs/handle-output.usecase';
import { observePacing } from './pacing/pacing.metrics';
import { RateLimitPacer } from './pacing/rate-limit-pacer';
import { OwedRefreshesRepository } from './journal/owed-refreshes.repository';
import { OwedRefreshSweeper } from './outputs/owed-refresh.sweeper';
import { BindingOutputsController } from './outputs/binding-outputs.controller';
import { PLATFORM_ADAPTER, type PlatformAdapter } from './platform-adapter.port';
import { tracedPlatformAdapter } from './traced-platform-adapter';
import { newReplicaId } from './replica-id';

/** A provider of {@link PLATFORM_ADAPTER}: the one thing each binding brings. */
export type PlatformAdapterProvider =
  | ClassProvider<PlatformAdapter>
  | ValueProvider<PlatformAdapter>
  | FactoryProvider<PlatformAdapter>
  | ExistingProvider<PlatformAdapter>;

export interface BindingCoreOptions {
  readonly platform: Platform;
  /** Must provide PLATFORM_ADAPTER; checked at start against `platform`. */
  readonly adapter: PlatformAdapterProvider;
  /** How long a claim holds a prompt; default 2 × TOLLGATE_ACK_WAIT_MS. */
  readonly leaseMs?: number;
  /** Outputs handled at once per replica; ConsumerHost's default when absent. */
  readonly maxInFlight?: number;
}

/**
 * A lease must outlive one live handling attempt, or a second replica would start the same
 * effect while the first is still talking to the platform; the runner keeps the message's own
 * ack_wait alive with working(), but nothing extends the lease. One ack_wait is what JetStream
 * already allows a handler before it redelivers, so a platform call taking longer is abnormal;
 * twice that leaves room for it and both transactions, and still lets a replica that died
 * mid-effect be taken over within a minute at the default ack_wait.
 */
export function defaultLeaseMs(ackWaitMs: number): number {
  return 2 * ackWaitMs;
}

/**
 * The prompt lifecycle shared by the bindings: repositories on the service's data source, the
 * output consumer, and the inbound use cases. Global, so a binding's controllers inject
 * ForwardClick, ForwardMessage, HasSession and PLATFORM_ADAPTER directly. Needs
 * ServiceRuntimeModule and InfrastructureModule (with {@link bindingMigrations} and
 * {@link bindingProvisionPlan}) imported beside it.
 */
@Module({})
export class BindingCoreModule {
  static forRoot(options: BindingCoreOptions): DynamicModule {
    if (options.adapter.provide !== PLATFORM_ADAPTER) {
      throw new Error('BindingCoreModule: the adapter provider must provide PLATFORM_ADAPTER');
    }
    return {
      module: BindingCoreModule,
      global: true,
      controllers: [BindingOutputsController],
      providers: [
        options.adapter,
        {
          provide: BINDING_CORE_OPTIONS,
          useFactory: (config: BaseConfig): BindingCoreSettings => ({
            platform: options.platform,
            leaseMs: options.leaseMs ?? defaultLeaseMs(config.TOLLGATE_ACK_WAIT_MS),
            ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
          }),
          inject: [SERVICE_CONFIG],
        },
        { provide: REPLICA_ID, useFactory: newReplicaId },
        {
          provide: PromptJournalRepository,
          useFactory: (database: DatabaseClient) =>
            new PromptJournalRepository(() => database.whenReady()),
          inject: [DatabaseClient],
        },
        {
          provide: DeliveredOutputsRepository,
          useFactory: (database: DatabaseClient) =>
            new DeliveredOutputsRepository(() => database.whenReady()),
          inject: [DatabaseClient],
        },
        {
          provide: KnownSessionsRepository,
          useFactory: (database: DatabaseClient) =>
            new KnownSessionsRepository(() => database.whenReady()),
          inject: [DatabaseClient],
        },
        {
          provide: COMMAND_PUBLISHER,
          useFactory: (config: BaseConfig, nats: NatsClient): CommandPublisher =>
            new JetStreamCommandPublisher(
              new Subjects(config.TOLLGATE_SUBJECT_PREFIX),
              async () => (await nats.whenReady()).publisher,
            ),
          inject: [SERVICE_CONFIG, NatsClient],
        },
        {
          provide: HandleOutput,
          useFactory: (
            config: BaseConfig,
            logger: Logger,
            settings: BindingCoreSettings,
            adapter: PlatformAdapter,
            replicaId: string,
            prompts: PromptJournalRepository,
            deliveries: DeliveredOutputsRepository,
            sessions: KnownSessionsRepository,
            commands: CommandPublisher,
            pacer: RateLimitPacer,
            owedRefreshes: OwedRefreshesRepository,
          ) =>
            new HandleOutput({
              subjects: new Subjects(config.TOLLGATE_SUBJECT_PREFIX),
              prompts,
              deliveries,
              sessions,
              adapter: tracedPlatformAdapter(adapter),
              replicaId,
              leaseMs: settings.leaseMs,
              // Counted from when the post was set out on: the lease that ran out, then one more.
              // A replica that takes over a dead one's post looks first when its lease ends;
              // with only one lease, a single failed look then would post a second prompt.
              reconcileForMs: 2 * settings.leaseMs,
              // A third of ack_wait bounds the longest platform call (platformCallTimeoutMs):
              // a call given up on gets as long again to land, so a retry finds what it made.
              landingMs: Math.floor(settings.leaseMs / 6),
              commands,
              now: () => new Date(),
              logger: logger.child({ component: 'binding-core', replicaId }),
              pacer,
              owedRefreshes,
            }),
          inject: [
            SERVICE_CONFIG,
            SERVICE_LOGGER,
            BINDING_CORE_OPTIONS,
            PLATFORM_ADAPTER,
            REPLICA_ID,
            PromptJournalRepository,
            DeliveredOutputsRepository,
            KnownSessionsRepository,
            COMMAND_PUBLISHER,
            RateLimitPacer,
            OwedRefreshesRepository,
          ],
        },
        {
          provide: RateLimitPacer,
          useFactory: (config: BaseConfig, metrics: MetricsService) => {
            const pacer = new RateLimitPacer({
              windowDivisor: config.TOLLGATE_RATE_WINDOW_DIVISOR,
            });
            observePacing(metrics.registry, pacer);
            return pacer;
          },
          inject: [SERVICE_CONFIG, MetricsService],
        },
        {
          provide: OwedRefreshesRepository,
          useFactory: (database: DatabaseClient) =>
            new OwedRefreshesRepository(() => database.whenReady()),
          inject: [DatabaseClient],
        },
        {
          provide: OwedRefreshSweeper,
          useFactory: (
            logger: Logger,
            settings: BindingCoreSettings,
            adapter: PlatformAdapter,
            replicaId: string,
            handleOutput: HandleOutput,
            pacer: RateLimitPacer,
            owed: OwedRefreshesRepository,
          ) =>
            new OwedRefreshSweeper({
              owed,
              handleOutput,
              pacer,
              adapter: tracedPlatformAdapter(adapter),
              replicaId,
              leaseMs: settings.leaseMs,
              logger: logger.child({ component: 'owed-refreshes', replicaId }),
            }),
          inject: [
            SERVICE_LOGGER,
            BINDING_CORE_OPTIONS,
            PLATFORM_ADAPTER,
            REPLICA_ID,
            HandleOutput,
            RateLimitPacer,
            OwedRefreshesRepository,
          ],
        },
        {
          provide: ForwardClick,
          useFactory: (prompts: PromptJournalRepository, commands: CommandPublisher) =>
            new ForwardClick({
              platform: options.platform,
              prompts,
              commands,
              now: () => new Date(),
            }),
          inject: [PromptJournalRepository, COMMAND_PUBLISHER],
        },
        {
          provide: OpenEditForm,
          useFactory: (prompts: PromptJournalRepository) => new OpenEditForm(prompts),
          inject: [PromptJournalRepository],
        },
        {
          provide: ForwardMessage,
          useFactory: (
            sessions: KnownSessionsRepository,
            prompts: PromptJournalRepository,
            adapter: PlatformAdapter,
            commands: CommandPublisher,
          ) =>
            new ForwardMessage({
              sessions,
              prompts,
              adapter: tracedPlatformAdapter(adapter),
              commands,
              now: () => new Date(),
            }),
          inject: [
            KnownSessionsRepository,
            PromptJournalRepository,
            PLATFORM_ADAPTER,
            COMMAND_PUBLISHER,
          ],
        },
        {
          provide: HasSession,
          useFactory: (sessions: KnownSessionsRepository) => new HasSession(sessions),
          inject: [KnownSessionsRepository],
        },
        BindingOutputConsumer,
      ],
      exports: [
        PLATFORM_ADAPTER,
        BINDING_CORE_OPTIONS,
        REPLICA_ID,
        COMMAND_PUBLISHER,
        PromptJournalRepository,
        DeliveredOutputsRepository,
        KnownSessionsRepository,
        HandleOutput,
        ForwardClick,
        OpenEditForm,
        ForwardMessage,
        HasSession,
      ],
    };
  }
}
