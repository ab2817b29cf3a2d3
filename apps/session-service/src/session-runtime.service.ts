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
  NatsClient,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { commandMessageHandler } from './commands/command.consumer';
import { HandleCommand } from './commands/handle-command.usecase';
import { pruneJournalTables } from './journal/journal-housekeeping';
import { SessionStore } from './journal/session-store';
import { MODEL_CLIENT, type ModelClient } from './model/model-client.port';
import { OutboxRelay } from './outbox/outbox-relay.service';
import { RecoverSessions } from './recovery/recover-sessions.usecase';
import type { SessionServiceConfig } from './session-service.config';
import { TOOL_POLICY, TOOL_REGISTRY, type ToolRegistry } from './tools/tool-registry';
import type { ToolPolicy } from './tools/tool-policy';
import { TOOL_GRANTS, type ToolGrants } from './session/domain/tool-grants.port';

const HOUSEKEEPING_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Wires the session service once its dependencies answer: recover parked sessions, relay
 * the outbox, then pull commands. On shutdown the consumer drains first, so the outputs of
 * in-flight commands are still relayed before the connections close.
 */
@Injectable()
export class SessionRuntime implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private relay?: OutboxRelay;
  private housekeeping?: NodeJS.Timeout;
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
  ) {
    this.logger = logger.child({ component: 'session-runtime' });
  }

  onApplicationBootstrap(): void {
    const subjects = new Subjects(this.config.TOLLGATE_SUBJECT_PREFIX);
    const channel = `outbox_${this.config.DATABASE_SCHEMA}`;
    const ready = Promise.all([this.database.whenReady(), this.nats.whenReady()]);
    const recovered = ready.then(async ([dataSource]) => {
      const store = new SessionStore(dataSource, subjects, channel);
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
      await new RecoverSessions(store, this.logger).execute();
      return store;
    });
    void this.consumers.run(
      sessionServiceConsumer(this.config.TOLLGATE_SUBJECT_PREFIX, this.config.TOLLGATE_ACK_WAIT_MS),
      async (message) => {
        const store = await recovered;
        const handle = new HandleCommand(store, {
          model: this.model,
          tools: this.tools,
          policy: this.policy,
          grants: this.grants,
        });
        return commandMessageHandler(subjects, handle, this.logger)(message);
      },
      { after: recovered },
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.housekeeping);
    await this.consumers.beforeApplicationShutdown();
    await this.relay?.stop();
  }
}
