import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { type JetStreamClient, jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  connectNats,
  JetStreamPublisher,
  roleInboxPrefix,
  type ManagedNatsConnection,
  provision,
  type ProvisionPlan,
} from '@tollgate/messaging';
import type { Logger } from 'pino';
import type { BaseConfig } from './base-config';
import { ReadinessService } from './readiness.service';
import { retryUntilStopped } from './startup-retry';
import { SERVICE_CONFIG, SERVICE_LOGGER } from './tokens';

export const NATS_PROVISION_PLAN = Symbol('NATS_PROVISION_PLAN');

interface Connected {
  readonly connection: ManagedNatsConnection;
  readonly js: JetStreamClient;
  readonly publisher: JetStreamPublisher;
}

/**
 * The service's NATS connection: connects in the background (HTTP health answers meanwhile),
 * provisions the streams and durable this service uses, and reconnects forever.
 */
@Injectable()
export class NatsClient implements OnApplicationBootstrap, OnApplicationShutdown {
  private connected?: Connected;
  private provisioned = false;
  private stopped = false;
  private readonly ready: Promise<Connected>;
  private resolveReady!: (value: Connected) => void;
  private readonly logger: Logger;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: BaseConfig,
    @Inject(SERVICE_LOGGER) logger: Logger,
    @Inject(NATS_PROVISION_PLAN) private readonly plan: ProvisionPlan,
    readiness: ReadinessService,
  ) {
    this.logger = logger.child({ component: 'nats' });
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
    readiness.register({
      name: 'nats',
      check: () => this.connected?.connection.isConnected() === true,
    });
    readiness.register({ name: 'streams', check: () => this.provisioned });
  }

  onApplicationBootstrap(): void {
    void this.start();
  }

  /** Resolves once connected and provisioned; start-up work that needs NATS awaits this. */
  whenReady(): Promise<Connected> {
    return this.ready;
  }

  get publisher(): JetStreamPublisher {
    if (!this.connected) throw new Error('NATS is not connected yet');
    return this.connected.publisher;
  }

  private async start(): Promise<void> {
    const connection = await connectNats({
      servers: this.config.NATS_URL.split(',').map((s) => s.trim()),
      name: this.config.service,
      logger: this.logger,
      reconnectTimeWaitMs: 1_000,
      credentials: this.config.natsCredentials,
      inboxPrefix: roleInboxPrefix(this.config.TOLLGATE_SUBJECT_PREFIX, this.config.service),
    });
    if (this.stopped) {
      await connection.close();
      return;
    }
    const js = jetstream(connection.nc);
    this.connected = { connection, js, publisher: new JetStreamPublisher(js) };
    const done = await retryUntilStopped(
      'provisioning streams',
      async () => provision(await jetstreamManager(connection.nc), this.plan, this.logger),
      { logger: this.logger, stopped: () => this.stopped },
    );
    if (!done) return;
    this.provisioned = true;
    this.resolveReady(this.connected);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.connected) await this.connected.connection.drain().catch(() => undefined);
  }
}
