import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { perSessionFairness } from '@tollgate/messaging';
import { bindingConsumer, Subjects } from '@tollgate/protocol';
import {
  type BaseConfig,
  DatabaseClient,
  JetStreamConsumers,
  NatsClient,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { BINDING_CORE_OPTIONS } from './binding-core.tokens';
import type { BindingCoreSettings } from './binding-core.settings';
import { pruneClearedPrompts } from './journal/cleared-prompts.housekeeping';
import { pruneDeliveredOutputs } from './journal/delivered-outputs.housekeeping';
import { HandleOutput } from './outputs/handle-output.usecase';
import { BINDING_OUTPUTS_PATTERN } from './outputs/binding-outputs.controller';
import { OwedRefreshSweeper } from './outputs/owed-refresh.sweeper';
import { PLATFORM_ADAPTER, type PlatformAdapter } from './platform-adapter.port';

const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Runs the binding's durable consumer once PostgreSQL is migrated and NATS provisioned.
 * ConsumerHost drains it on shutdown, so a pending prompt never holds a replica up (B14).
 *
 * Retries (B12) are the runner's: a transient platform failure is naked with a delay of
 * TOLLGATE_RETRY_BASE_MS · 2^(n-1) after the n-th delivery, capped at the runner's 5 minutes,
 * and never shorter than the platform's Retry-After; a permanent one is dead-lettered at once.
 * The message is dead-lettered after max_deliver (1000) deliveries, so with the default 1 s
 * base it is retried for 1 + 2 + … + 256 s (deliveries 1–9) + 990 × 300 s (10–999)
 * ≈ 297 500 s ≈ 82.6 hours before that. Whatever the base, at most the first 19 of those 999
 * delays are below the cap, so it is never less than a day (binding-retry-horizon.spec.ts).
 */
@Injectable()
export class BindingOutputConsumer
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private housekeeping?: NodeJS.Timeout;
  private stopping = false;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: BaseConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    @Inject(BINDING_CORE_OPTIONS) private readonly settings: BindingCoreSettings,
    @Inject(PLATFORM_ADAPTER) private readonly adapter: PlatformAdapter,
    private readonly handleOutput: HandleOutput,
    private readonly database: DatabaseClient,
    private readonly nats: NatsClient,
    private readonly jetstream: JetStreamConsumers,
    private readonly owedRefreshes: OwedRefreshSweeper,
  ) {}

  onApplicationBootstrap(): void {
    const { platform } = this.settings;
    if (this.adapter.platform !== platform) {
      throw new Error(
        `the ${this.adapter.platform} adapter was given to the ${platform} binding core`,
      );
    }
    const ready = Promise.all([this.database.whenReady(), this.nats.whenReady()]);
    void ready.then(([dataSource]) => {
      if (!this.stopping) this.owedRefreshes.start();
      this.housekeeping = setInterval(() => {
        const maxAgeDays = this.config.TOLLGATE_OUT_MAX_AGE_DAYS;
        Promise.all([
          pruneDeliveredOutputs(dataSource, maxAgeDays),
          pruneClearedPrompts(dataSource, maxAgeDays),
        ]).then(
          ([outputs, prompts]) => this.logger.debug({ outputs, prompts }, 'pruned the journal'),
          (error: unknown) => this.logger.warn({ err: error }, 'pruning the journal failed'),
        );
      }, HOUSEKEEPING_INTERVAL_MS);
      this.housekeeping.unref();
    });
    const subjects = new Subjects(this.config.TOLLGATE_SUBJECT_PREFIX);
    // The next pull is under way while the handlers still run (issue 12, P4).
    const maxHeld = 4 * (this.settings.maxInFlight ?? 16);
    // Fed to BindingOutputsController's @EventPattern by the JetStream transport.
    this.jetstream.declare(
      BINDING_OUTPUTS_PATTERN,
      bindingConsumer(
        this.config.TOLLGATE_SUBJECT_PREFIX,
        platform,
        this.config.TOLLGATE_ACK_WAIT_MS,
      ),
      {
        after: ready,
        // Redelivered outputs are dropped by their seq or delivery id: a lost ack costs a
        // cheap redelivery, a confirmed one a request/reply per output.
        confirmAcks: false,
        // A restart's refreshes are set aside as they arrive, without a handler slot.
        triage: (subject, data) => this.handleOutput.triage(subject, data),
        maxHeld,
        // One session's outputs one at a time, at most 16 held (docs/protocol.md §2). They
        // may all start: HandleOutput orders them and parks those waiting their turn, so
        // that several outputs of one prompt are seen together and only the newest shown.
        fairness: perSessionFairness(
          (subject) => {
            const parsed = subjects.parseOutputSubject(subject);
            return parsed.ok ? parsed.value.sessionId : undefined;
          },
          { maxHeld, maxRunningPerKey: 16 },
        ),
        ...(this.settings.maxInFlight === undefined
          ? {}
          : { maxInFlight: this.settings.maxInFlight }),
      },
    );
  }

  /** Before the consumer drains: a refresh being shown finishes, no new one starts. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.owedRefreshes.stop();
  }

  onApplicationShutdown(): void {
    clearInterval(this.housekeeping);
  }
}
