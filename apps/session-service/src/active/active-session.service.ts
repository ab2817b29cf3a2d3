// What the leader runs, started when leadership is won and stopped at shutdown: the outbox
// relay, housekeeping, the audit sealer, recovery of parked sessions, the scheduler that
// decides commands, the prompt timers and the command consumer. Built by ActiveSessionModule
// (loaded only by the leader); SessionRuntime holds the leader gate and calls start/stop.
import { Inject, Injectable } from '@nestjs/common';
import { pruneAudit } from '@tollgate/audit';
import { perSessionFairness, type KeyFairness } from '@tollgate/messaging';
import {
  type Command,
  commandSubject,
  DLQ_HEADERS,
  encodeMessage,
  sessionServiceConsumer,
  Subjects,
} from '@tollgate/protocol';
import {
  ConsumerHost,
  JetStreamConsumers,
  MetricsService,
  NatsClient,
  SERVICE_CONFIG,
} from '@tollgate/service-runtime';
import { carriedContext, carryContext } from '@tollgate/telemetry';
import type { Logger } from 'pino';
import { Counter, Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import { AuditSealerPoller } from '../audit/audit-sealer.poller';
import { commandMessageHandler } from '../commands/command.consumer';
import { HandleCommand } from '../commands/handle-command.usecase';
import { SESSION_COMMANDS_PATTERN } from '../commands/session-commands.pattern';
import { SessionScheduler } from '../commands/session-scheduler';
import { auditEndedGrants } from '../grants/grant-end.sweep';
import { pruneJournalTables } from '../journal/journal-housekeeping';
import { PromptTimerRepository } from '../journal/prompt-timer.repository';
import { type DecideOptions, SessionStore } from '../journal/session-store';
import { OutboxRelay } from '../outbox/outbox-relay.service';
import { observePendingPrompts } from '../prompt/pending-prompts.metrics';
import { RecoverSessions } from '../recovery/recover-sessions.usecase';
import type { SessionServiceConfig } from '../session-service.config';
import { promptTimerKey } from '../session/domain/prompt-timer';
import { decidePromptTimer } from '../session/domain/prompt-timer.decider';
import type { SessionDeps } from '../session/domain/session-deps';
import { isSubAgentCommand, type SessionCommand } from '../session/domain/sub-agent';
import { driveTurn } from '../session/drive-turn';
import { PromptTimerPoller } from '../timers/prompt-timer.poller';
import { decisionSpan } from '../tracing/traced-deps';
import {
  ACTIVE_CLOCK,
  ACTIVE_DATA_SOURCE,
  ACTIVE_LOGGER,
  SESSION_DEPS,
} from './active-session.tokens';

const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

@Injectable()
export class ActiveSession {
  private onCommand?: (command: Command) => Promise<void>;
  private scheduler?: SessionScheduler;
  private timers?: PromptTimerPoller;
  private recovered?: Promise<unknown>;
  private housekeeping?: NodeJS.Timeout;
  private stopping = false;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: SessionServiceConfig,
    @Inject(ACTIVE_LOGGER) private readonly logger: Logger,
    @Inject(ACTIVE_DATA_SOURCE) private readonly dataSource: DataSource,
    @Inject(SESSION_DEPS) private readonly deps: SessionDeps,
    @Inject(ACTIVE_CLOCK) private readonly clock: () => Date,
    private readonly subjects: Subjects,
    private readonly store: SessionStore,
    private readonly relay: OutboxRelay,
    private readonly auditSealer: AuditSealerPoller,
    private readonly handle: HandleCommand,
    private readonly timerRepository: PromptTimerRepository,
    private readonly nats: NatsClient,
    private readonly consumers: ConsumerHost,
    private readonly jetstream: JetStreamConsumers,
    private readonly metrics: MetricsService,
  ) {}

  /** Synchronous, so a shutdown sees either nothing started or everything it must stop. */
  start(): void {
    const { dataSource, store, subjects, deps } = this;
    this.relay.start();
    observePendingPrompts(this.metrics.registry, dataSource);
    // Only the leader gets here, so one replica prunes and records ends, never two at once.
    this.housekeeping = setInterval(() => {
      pruneJournalTables(dataSource).then(
        (pruned) => this.logger.debug(pruned, 'pruned journal tables'),
        (error: unknown) => this.logger.warn({ err: error }, 'pruning journal tables failed'),
      );
      // G4: grants that lapsed or ran out reach the audit trail; old audit days are pruned
      // whole, their heads kept (as `tollgate audit prune` does).
      auditEndedGrants(dataSource).then(
        (ended) => this.logger.debug({ ended }, 'recorded ended grants'),
        (error: unknown) => this.logger.warn({ err: error }, 'recording ended grants failed'),
      );
      pruneAudit(dataSource, this.config.TOLLGATE_AUDIT_RETENTION_DAYS).then(
        (pruned) => this.logger.debug(pruned, 'pruned audit days'),
        (error: unknown) => this.logger.warn({ err: error }, 'pruning audit days failed'),
      );
    }, HOUSEKEEPING_INTERVAL_MS);
    this.housekeeping.unref();
    this.auditSealer.start();
    const scheduler = this.schedulerFor((id, options) => recovery.resumeOne(id, options));
    this.scheduler = scheduler;
    const recovery = new RecoverSessions(store, this.logger, deps, (id, error) =>
      scheduler.quarantine(id, error),
    );
    // Parked sessions are refreshed before commands flow; turns left in flight and queued
    // commands are resumed by the scheduler, so a slow or absent model delays only them.
    const recovered = this.untilDone('recovering parked sessions', async () => {
      const { inFlight } = await recovery.execute();
      scheduler.resume(inFlight, await store.inbox());
    });
    this.recovered = recovered;
    this.timers = new PromptTimerPoller({
      repository: this.timerRepository,
      fire: ({ sessionId, timer }) => {
        const key = promptTimerKey(sessionId, timer);
        return scheduler.submitTimer(sessionId, () =>
          store.decide(sessionId, key, async (recorder) => {
            decidePromptTimer(recorder, timer, key);
            await driveTurn(recorder, deps);
          }),
        );
      },
      logger: this.logger,
      now: this.clock,
      intervalMs: this.config.TOLLGATE_TIMER_POLL_MS,
    });
    // After recovery, so a timer due during the outage follows the refresh of its prompt.
    void recovered.then(() => this.timers?.start());
    this.onCommand = commandMessageHandler(
      {
        // The message's trace goes with the command into the session's mailbox.
        submit: (command) => {
          carryContext(command);
          return scheduler.submit(command);
        },
      },
      this.logger,
    );
    // Fed to CommandsController's @EventPattern by the JetStream transport.
    this.jetstream.declare(
      SESSION_COMMANDS_PATTERN,
      sessionServiceConsumer(this.config.TOLLGATE_SUBJECT_PREFIX, this.config.TOLLGATE_ACK_WAIT_MS),
      { after: recovered, fairness: sessionFairness(subjects) },
    );
  }

  /** One parsed command delivery; undefined until started. */
  get commandHandler(): ((command: Command) => Promise<void>) | undefined {
    return this.onCommand;
  }

  /**
   * The consumer drains first, so the outputs of in-flight commands are still relayed; the
   * audit entries of the drained decisions are linked last. The leader lock is the caller's.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.housekeeping);
    this.timers?.stop();
    await this.consumers.beforeApplicationShutdown();
    await this.recovered?.catch(() => undefined);
    // Turns still under way after the drain deadline stay in flight in the journal.
    await this.scheduler?.drain(this.config.TOLLGATE_DRAIN_MS);
    await this.relay.stop();
    // Any entries left over are linked by the next leader's first tick.
    await this.auditSealer.tick().catch(() => undefined);
    await this.auditSealer.stop();
  }

  private schedulerFor(
    recover: (sessionId: string, options: DecideOptions) => ReturnType<SessionStore['decide']>,
  ): SessionScheduler {
    const quarantined = new Counter({
      name: 'tollgate_sessions_quarantined_total',
      help: 'Sessions set aside because their journal could not be replayed or recovered',
      registers: [this.metrics.registry],
    });
    const turns = new Gauge({
      name: 'tollgate_session_turns_in_flight',
      help: 'Sessions with a decision or turn under way',
      registers: [this.metrics.registry],
    });
    const ackWaitMs = this.config.TOLLGATE_ACK_WAIT_MS;
    const handle = this.handle;
    return new SessionScheduler({
      store: this.store,
      decide: (command, options) =>
        decisionSpan(command, carriedContext(command), () => handle.execute(command, options)),
      recover,
      failInFlight: (sessionId, options) => handle.failInFlight(sessionId, options),
      logger: this.logger,
      maxTurns: this.config.TOLLGATE_MAX_TURNS,
      // A decision that failed part-way is recovered well within one ack wait (S18).
      retryBaseMs: Math.min(this.config.TOLLGATE_RETRY_BASE_MS, Math.floor(ackWaitMs / 8)),
      retryMaxMs: Math.max(100, Math.floor(ackWaitMs / 4)),
      deadLetter: (command, reason) => this.deadLetter(command, reason),
      onQuarantine: () => quarantined.inc(),
      onTurns: (n) => turns.set(n),
    });
  }

  /** A queued command's message was acked when it was queued; its copy goes to the DLQ. */
  private async deadLetter(command: SessionCommand, reason: string): Promise<void> {
    if (isSubAgentCommand(command)) {
      // Never on NATS, so it has no subject to be copied from: the log names it for an operator.
      this.logger.error(
        { sessionId: command.sessionId, commandId: command.id, type: command.type, reason },
        'a sub-agent command cannot be decided; dropped',
      );
      return;
    }
    const subjects = this.subjects;
    await this.nats.publisher.publish(subjects.dlq(this.config.service), encodeMessage(command), {
      msgId: `session-inbox:${command.sessionId}:${command.id}`,
      headers: {
        [DLQ_HEADERS.reason]: reason.replace(/[\r\n]+/g, ' ').slice(0, 500),
        [DLQ_HEADERS.originalSubject]: commandSubject(subjects, command),
        [DLQ_HEADERS.service]: this.config.service,
      },
    });
  }

  /** Retries `work` with a growing delay until it succeeds or the service stops. */
  private async untilDone(what: string, work: () => Promise<void>): Promise<void> {
    for (let attempt = 0; !this.stopping; attempt += 1) {
      try {
        return await work();
      } catch (error) {
        const delayMs = Math.min(30_000, this.config.TOLLGATE_RETRY_BASE_MS * 2 ** attempt);
        this.logger.error({ err: error, delayMs }, `${what} failed; trying again`);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  }
}

/**
 * A command's message is held only until the command is durable (its first commit, or its
 * row in the session's inbox); the scheduler orders the decisions. One message per session is
 * handled at a time, so commands reach the scheduler in arrival order, a few wait in line,
 * the rest are deferred, and a session flooding past 1 000 deferred commands has the excess
 * dead-lettered. Keyed by the session id the subject names, whatever the subject's shape.
 */
function sessionFairness(subjects: Subjects): KeyFairness {
  return perSessionFairness(
    (subject) => {
      const parsed = subjects.parseCommandSubject(subject);
      return parsed.ok ? parsed.value.sessionId : undefined;
    },
    { maxHeld: 256 },
  );
}
