import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import {
  ConsumerRunner,
  type ConsumerDefinition,
  type ConsumerRunnerOptions,
  type KeyFairness,
  type MessageHandler,
} from '@tollgate/messaging';
import { Subjects } from '@tollgate/protocol';
import type { Logger } from 'pino';
import type { BaseConfig } from './base-config';
import { classifyHandlerFailure } from './handler-failure.classifier';
import { MetricsService } from './metrics.service';
import { NatsClient } from './nats.client';
import { ReadinessService } from './readiness.service';
import { SERVICE_CONFIG, SERVICE_LOGGER } from './tokens';

/**
 * Runs the service's durable consumers once NATS is provisioned (and whatever else the
 * caller awaits first), counts their outcomes, and drains them within TOLLGATE_DRAIN_MS on
 * shutdown before connections close.
 */
@Injectable()
export class ConsumerHost implements BeforeApplicationShutdown {
  private readonly runners: ConsumerRunner[] = [];
  private stopping = false;
  private drained?: Promise<void>;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: BaseConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    private readonly nats: NatsClient,
    private readonly metrics: MetricsService,
    private readonly readiness: ReadinessService,
  ) {}

  async run(
    definition: ConsumerDefinition,
    handler: MessageHandler,
    options: {
      maxInFlight?: number;
      after?: Promise<unknown>;
      fairness?: KeyFairness;
      confirmAcks?: boolean;
      maxHeld?: number;
      triage?: ConsumerRunnerOptions['triage'];
    } = {},
  ): Promise<void> {
    // Registered before anything is awaited: the service is not ready until this runs.
    const started: { runner?: ConsumerRunner } = {};
    this.readiness.register({
      name: `consumer:${definition.durable}`,
      check: () => started.runner?.isRunning() === true,
    });
    this.readiness.register({
      name: `consumer-progress:${definition.durable}`,
      check: () => started.runner?.progress().stalled !== true,
    });
    const { js, connection } = await this.nats.whenReady();
    await options.after;
    if (this.stopping) return;
    const subjects = new Subjects(this.config.TOLLGATE_SUBJECT_PREFIX);
    const runner = new ConsumerRunner({
      js,
      stream: definition.stream,
      durable: definition.durable,
      service: this.config.service,
      dlqSubject: subjects.dlq(this.config.service),
      handler: async (message) => {
        const end = this.metrics.handlerSeconds.startTimer({ stream: definition.stream });
        try {
          await handler(message);
        } catch (error) {
          throw classifyHandlerFailure(error);
        } finally {
          end();
        }
      },
      logger: this.logger,
      maxInFlight: options.maxInFlight ?? 16,
      ...(options.fairness ? { fairness: options.fairness } : {}),
      ...(options.confirmAcks === undefined ? {} : { confirmAcks: options.confirmAcks }),
      ...(options.maxHeld === undefined ? {} : { maxHeld: options.maxHeld }),
      ...(options.triage === undefined ? {} : { triage: options.triage }),
      retryBaseMs: this.config.TOLLGATE_RETRY_BASE_MS,
      maxPayloadBytes: () => connection.nc.info?.max_payload,
      stallAfterMs: this.config.TOLLGATE_STALL_AFTER_MS,
      progressCheckMs: Math.min(5_000, Math.floor(this.config.TOLLGATE_STALL_AFTER_MS / 2)),
      onOutcome: (outcome) =>
        this.metrics.messagesHandled.inc({ stream: definition.stream, outcome }),
      handlerTimeoutMs: this.config.TOLLGATE_HANDLER_TIMEOUT_MS,
      onAbandoned: () => this.metrics.handlersAbandoned.inc({ stream: definition.stream }),
    });
    started.runner = runner;
    this.metrics.observeConsumer(definition.durable, () => runner.progress());
    this.runners.push(runner);
    await runner.start();
  }

  /** Idempotent, so a service can wait for the drain before stopping what comes after it. */
  beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.drained ??= Promise.all(
      this.runners.map((runner) => runner.drain(this.config.TOLLGATE_DRAIN_MS)),
    ).then(() => undefined);
    return this.drained;
  }
}
