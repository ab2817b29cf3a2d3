import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { sessionServiceConsumer, Subjects } from '@tollgate/protocol';
import {
  ConsumerHost,
  DatabaseClient,
  JetStreamConsumers,
  NatsClient,
  ReadinessService,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@tollgate/service-runtime';
import { type DeliveredMessage, type KeyFairness, TransientFailure } from '@tollgate/messaging';
import { SESSION_COMMANDS_PATTERN } from './commands/session-commands.pattern';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { commandMessageHandler } from './commands/command.consumer';
import { HandleCommand } from './commands/handle-command.usecase';
import { pruneJournalTables } from './journal/journal-housekeeping';
import { failpointFor } from './journal/failpoint';
import { SessionStore } from './journal/session-store';
import { LeaderLock } from './leadership/leader-lock';
import { MODEL_CLIENT, type ModelClient } from './model/model-client.port';
import { OutboxRelay } from './outbox/outbox-relay.service';
import { RecoverSessions } from './recovery/recover-sessions.usecase';
import type { SessionServiceConfig } from './session-service.config';
import type { SessionDeps } from './session/domain/session-deps';
import { TOOL_POLICY, TOOL_REGISTRY, type ToolRegistry } from './tools/tool-registry';
import type { ToolPolicy } from './tools/tool-policy';
import { TOOL_GRANTS, type ToolGrants } from './session/domain/tool-grants.port';

const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Wires the session service once its dependencies answer. Only the instance holding the
 * leader lock works: it recovers parked sessions, relays the outbox, then pulls commands; a
 * standby stays ready, says so, and waits for the lock. On shutdown the consumer drains
 * first, so the outputs of in-flight commands are still relayed, and the lock goes last, so
 * a standby takes over only once nothing here writes any more.
 */
@Injectable()
export class SessionRuntime implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private relay?: OutboxRelay;
  private onCommand?: (message: DeliveredMessage) => Promise<void>;
  private recovered?: Promise<unknown>;
  private housekeeping?: NodeJS.Timeout;
  private stopping = false;
  private readonly leader: LeaderLock;
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
    private readonly readiness: ReadinessService,
  ) {
    this.logger = logger.child({ component: 'session-runtime' });
    this.leader = new LeaderLock({
      databaseUrl: config.DATABASE_URL,
      schema: config.DATABASE_SCHEMA,
      logger,
      onLost: (error) => {
        // Another instance may already hold the lock; optimistic concurrency on the journal
        // covers whatever this one was doing, and the orchestrator restarts it as a standby.
        this.logger.fatal({ err: error }, 'lost the leader lock connection; exiting');
        process.exit(1);
      },
    });
  }

  onApplicationBootstrap(): void {
    // Ready once the role is known: a standby answers 200 without a consumer, the active
    // instance registers its consumer check in the same tick as it takes the lock.
    this.readiness.register({ name: 'leadership', check: () => this.leader.decided });
    this.readiness.describe('role', () => this.leader.role);
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
    const store = new SessionStore(
      dataSource,
      subjects,
      channel,
      failpointFor(this.config.TOLLGATE_FAILPOINT),
    );
    this.relay = new OutboxRelay({
      dataSource,
      databaseUrl: this.config.DATABASE_URL,
      channel,
      publisher: () => this.nats.publisher,
      logger: this.logger,
    });
    this.relay.start();
    this.housekeeping = setInterval(() => {
      pruneJournalTables(dataSource).then(
        (pruned) => this.logger.debug(pruned, 'pruned journal tables'),
        (error: unknown) => this.logger.warn({ err: error }, 'pruning journal tables failed'),
      );
    }, HOUSEKEEPING_INTERVAL_MS);
    this.housekeeping.unref();
    const deps: SessionDeps = {
      model: this.model,
      tools: this.tools,
      policy: this.policy,
      grants: this.grants,
    };
    const recovered = new RecoverSessions(store, this.logger, deps).execute();
    this.recovered = recovered;
    const handle = new HandleCommand(store, deps);
    this.onCommand = commandMessageHandler(subjects, handle, this.logger);
    // Fed to CommandsController's @EventPattern by the JetStream transport.
    this.jetstream.declare(
      SESSION_COMMANDS_PATTERN,
      sessionServiceConsumer(this.config.TOLLGATE_SUBJECT_PREFIX, this.config.TOLLGATE_ACK_WAIT_MS),
      { after: recovered, fairness: sessionFairness(subjects) },
    );
  }

  /** One command delivery, once this instance leads (the consumer runs only then). */
  handleCommand(message: DeliveredMessage): Promise<void> {
    if (this.onCommand === undefined) throw new TransientFailure('not_leading');
    return this.onCommand(message);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.housekeeping);
    // A standby has nothing to finish: stop waiting for the lock at once.
    if (this.leader.role === 'standby') await this.leader.release();
    await this.consumers.beforeApplicationShutdown();
    await this.recovered?.catch(() => undefined);
    await this.relay?.stop();
    await this.leader.release();
  }
}

/**
 * Commands of one session run one at a time (the session lock), so holding more of them only
 * blocks handler slots: one runs, a few wait in line, the rest are deferred, and a session
 * flooding past 1 000 deferred commands has the excess dead-lettered. Keyed by the session id
 * the subject names, whatever the subject's shape.
 */
function sessionFairness(subjects: Subjects): KeyFairness {
  return {
    keyOf: (subject) => {
      const parsed = subjects.parseCommandSubject(subject);
      return parsed.ok ? parsed.value.sessionId : undefined;
    },
    maxRunningPerKey: 1,
    maxHeldPerKey: 16,
    maxHeld: 256,
    deferMs: 1_000,
    maxDeferredPerKey: 1_000,
  };
}
