import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
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
  DatabaseClient,
  JetStreamConsumers,
  MetricsService,
  NatsClient,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@tollgate/service-runtime';
import { type KeyFairness, perSessionFairness, TransientFailure } from '@tollgate/messaging';
import { SESSION_COMMANDS_PATTERN } from './commands/session-commands.pattern';
import { carriedContext, carryContext } from '@tollgate/telemetry';
import type { Logger } from 'pino';
import { Counter, Gauge } from 'prom-client';
import type { DataSource } from 'typeorm';
import { commandMessageHandler } from './commands/command.consumer';
import { HandleCommand } from './commands/handle-command.usecase';
import { SessionScheduler } from './commands/session-scheduler';
import { pruneJournalTables } from './journal/journal-housekeeping';
import { auditEndedGrants } from './grants/grant-end.sweep';
import { pruneAudit } from '@tollgate/audit';
import { AuditSealerPoller } from './audit/audit-sealer.poller';
import { failpointFor } from './journal/failpoint';
import { type DecideOptions, SessionStore } from './journal/session-store';
import { isSubAgentCommand, type SessionCommand } from './session/domain/sub-agent';
import { LeaderGate } from './leadership/leader-gate';
import { MODEL_CLIENT, type ModelClient } from './model/model-client.port';
import { OutboxRelay } from './outbox/outbox-relay.service';
import { observePendingPrompts } from './prompt/pending-prompts.metrics';
import { RecoverSessions } from './recovery/recover-sessions.usecase';
import type { SessionServiceConfig } from './session-service.config';
import type { SessionDeps } from './session/domain/session-deps';
import { TOOL_POLICY, TOOL_REGISTRY, type ToolRegistry } from './tools/tool-registry';
import type { ToolPolicy } from './tools/tool-policy';
import { TOOL_GRANTS, type ToolGrants } from './session/domain/tool-grants.port';
import { PromptTimerRepository } from './journal/prompt-timer.repository';
import { decidePromptTimer } from './session/domain/prompt-timer.decider';
import { driveTurn } from './session/drive-turn';
import { promptTimerKey } from './session/domain/prompt-timer';
import { PromptTimerPoller } from './timers/prompt-timer.poller';
import { decisionSpan, tracedSessionDeps } from './tracing/traced-deps';

const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Wires the session service once its dependencies answer. Only the instance the LeaderGate
 * lets through works: it recovers parked sessions, relays the outbox, then pulls commands; a
 * standby stays ready, says so, and waits for the lock. On shutdown the consumer drains
 * first, so the outputs of in-flight commands are still relayed, and the lock goes last, so
 * a standby takes over only once nothing here writes any more.
 */
@Injectable()
export class SessionRuntime implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private relay?: OutboxRelay;
  private onCommand?: (command: Command) => Promise<void>;
  private scheduler?: SessionScheduler;
  private timers?: PromptTimerPoller;
  private recovered?: Promise<unknown>;
  private housekeeping?: NodeJS.Timeout;
  private auditSealer?: AuditSealerPoller;
  private stopping = false;
  private readonly logger: Logger;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: SessionServiceConfig,
    @Inject(SERVICE_LOGGER) logger: Logger,
    @Inject(MODEL_CLIENT) private readonly model: ModelClient,
    @Inject(TOOL_REGISTRY) private readonly tools: ToolRegistry,
    @Inject(TOOL_POLICY) private readonly policy: ToolPolicy,
    @Inject(TOOL_GRANTS) private readonly grants: ToolGrants,
    private readonly database: DatabaseClient,
    private readonly nats: NatsClient,
    private readonly consumers: ConsumerHost,
    private readonly jetstream: JetStreamConsumers,
    private readonly metrics: MetricsService,
    private readonly leader: LeaderGate,
  ) {
    this.logger = logger.child({ component: 'session-runtime' });
  }

  onApplicationBootstrap(): void {
    void this.lead();
  }

  private async lead(): Promise<void> {
    const [dataSource] = await Promise.all([this.database.whenReady(), this.nats.whenReady()]);
    if (this.stopping || !(await this.leader.acquire()) || this.stopping) return;
    this.becomeActive(dataSource);
  }

  /** Synchronous, so a shutdown sees either nothing started or everything it must stop. */
  private becomeActive(dataSource: DataSource): void {
    const subjects = new Subjects(this.config.TOLLGATE_SUBJECT_PREFIX);
    const channel = `outbox_${this.config.DATABASE_SCHEMA}`;
    // TOLLGATE_TEST_CLOCK_OFFSET_MS is test-only: unset, this is the wall clock.
    const offsetMs = this.config.TOLLGATE_TEST_CLOCK_OFFSET_MS ?? 0;
    const clock = () => new Date(Date.now() + offsetMs);
    const store = new SessionStore(
      dataSource,
      subjects,
      channel,
      failpointFor(this.config.TOLLGATE_FAILPOINT),
      () => clock().toISOString(),
      this.config.TOLLGATE_SESSION_GRANT_TTL,
    );
    this.relay = new OutboxRelay({
      dataSource,
      databaseUrl: this.config.DATABASE_URL,
      channel,
      publisher: () => this.nats.publisher,
      logger: this.logger,
    });
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
    // G4: decisions commit their audit entries unchained; the leader links them in order.
    this.auditSealer = new AuditSealerPoller({
      database: dataSource,
      logger: this.logger,
      intervalMs: this.config.TOLLGATE_AUDIT_SEAL_MS,
    });
    this.auditSealer.start();
    const deps: SessionDeps = tracedSessionDeps({
      model: this.model,
      tools: this.tools,
      policy: this.policy,
      grants: this.grants,
    });
    const handle = new HandleCommand(store, deps);
    const scheduler = this.schedulerFor(store, subjects, handle, (id, options) =>
      recovery.resumeOne(id, options),
    );
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
      repository: new PromptTimerRepository(dataSource),
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
      now: clock,
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

  /** One parsed command delivery, once this instance leads (the consumer runs only then). */
  handleCommand(command: Command): Promise<void> {
    if (this.onCommand === undefined) throw new TransientFailure('not_leading');
    return this.onCommand(command);
  }

  private schedulerFor(
    store: SessionStore,
    subjects: Subjects,
    handle: HandleCommand,
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
    return new SessionScheduler({
      store,
      decide: (command, options) =>
        decisionSpan(command, carriedContext(command), () => handle.execute(command, options)),
      recover,
      failInFlight: (sessionId, options) => handle.failInFlight(sessionId, options),
      logger: this.logger,
      maxTurns: this.config.TOLLGATE_MAX_TURNS,
      // A decision that failed part-way is recovered well within one ack wait (S18).
      retryBaseMs: Math.min(this.config.TOLLGATE_RETRY_BASE_MS, Math.floor(ackWaitMs / 8)),
      retryMaxMs: Math.max(100, Math.floor(ackWaitMs / 4)),
      deadLetter: (command, reason) => this.deadLetter(subjects, command, reason),
      onQuarantine: () => quarantined.inc(),
      onTurns: (n) => turns.set(n),
    });
  }

  /** A queued command's message was acked when it was queued; its copy goes to the DLQ. */
  private async deadLetter(
    subjects: Subjects,
    command: SessionCommand,
    reason: string,
  ): Promise<void> {
    if (isSubAgentCommand(command)) {
      // Never on NATS, so it has no subject to be copied from: the log names it for an operator.
      this.logger.error(
        { sessionId: command.sessionId, commandId: command.id, type: command.type, reason },
        'a sub-agent command cannot be decided; dropped',
      );
      return;
    }
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

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.housekeeping);
    this.timers?.stop();
    // A standby has nothing to finish: stop waiting for the lock at once.
    if (this.leader.role === 'standby') await this.leader.release();
    await this.consumers.beforeApplicationShutdown();
    await this.recovered?.catch(() => undefined);
    // Turns still under way after the drain deadline stay in flight in the journal.
    await this.scheduler?.drain(this.config.TOLLGATE_DRAIN_MS);
    await this.relay?.stop();
    // Last, so the entries of the drained decisions are linked before the lease goes; any
    // left over are linked by the next leader's first tick.
    await this.auditSealer?.tick().catch(() => undefined);
    await this.auditSealer?.stop();
    await this.leader.release();
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
