import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { type JetStreamClient, jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  connectNats,
  describeVerification,
  JetStreamPublisher,
  roleInboxPrefix,
  type ManagedNatsConnection,
  provision,
  type ProvisionPlan,
  verifyProvisioned,
} from '@tollgate/messaging';
import type { Logger } from 'pino';
import type { BaseConfig } from './base-config';
import { MetricsService } from './metrics.service';
import { ReadinessService } from './readiness.service';
import { retryUntilStopped } from './startup-retry';
import { SERVICE_CONFIG, SERVICE_LOGGER } from './tokens';

export const NATS_PROVISION_PLAN = Symbol('NATS_PROVISION_PLAN');

interface Connected {
  readonly connection: ManagedNatsConnection;
  readonly js: JetStreamClient;
  readonly publisher: JetStreamPublisher;
}

/** How often a service looks again at its streams and durable once ready. */
const RECHECK_MS = 30_000;

/**
 * The service's NATS connection: connects in the background (HTTP health answers meanwhile)
 * and reconnects forever. Streams and durables are the operator's (`npm run provision`): a
 * service with NATS credentials may create nothing, so it checks that its durable (and, when
 * its role may read them, its streams) exist with exactly their defined configuration, and is
 * not ready until they do, naming what is missing or differs; it looks again every 30 s. A
 * service connecting anonymously (a development NATS without users, where no permission
 * holds anyway) creates them itself, as `npm start` and the tests rely on.
 */
@Injectable()
export class NatsClient implements OnApplicationBootstrap, OnApplicationShutdown {
  private connected?: Connected;
  private provisioned = false;
  private recheck?: NodeJS.Timeout;
  private stopped = false;
  private readonly ready: Promise<Connected>;
  private resolveReady!: (value: Connected) => void;
  private readonly logger: Logger;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: BaseConfig,
    @Inject(SERVICE_LOGGER) logger: Logger,
    @Inject(NATS_PROVISION_PLAN) private readonly plan: ProvisionPlan,
    readiness: ReadinessService,
    private readonly metrics: MetricsService,
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
    const selfProvisioning = this.config.natsCredentials === undefined;
    const done = await retryUntilStopped(
      selfProvisioning ? 'provisioning streams' : 'checking streams and durable',
      async () => {
        const jsm = await jetstreamManager(connection.nc);
        if (selfProvisioning) await provision(jsm, this.plan, this.logger);
        else await this.check(jsm);
        return true;
      },
      { logger: this.logger, stopped: () => this.stopped },
    );
    if (!done) return;
    this.provisioned = true;
    this.resolveReady(this.connected);
    this.recheck = setInterval(() => {
      void jetstreamManager(connection.nc)
        .then((jsm) => this.check(jsm))
        .then(
          () => {
            this.provisioned = true;
          },
          (error: unknown) => {
            // Not ready again until it is mended; a NATS that is down shows as `nats` instead.
            if (selfProvisioning || !connection.isConnected()) return;
            this.provisioned = false;
            this.logger.error({ err: error }, 'streams or durable no longer as defined');
          },
        );
    }, RECHECK_MS);
    this.recheck.unref();
  }

  /** Throws, naming every problem, unless everything this service uses is as defined. */
  private async check(jsm: Awaited<ReturnType<typeof jetstreamManager>>): Promise<void> {
    const report = await verifyProvisioned(jsm, this.plan);
    this.metrics.observeStreams(report.usage);
    if (report.missing.length > 0 || report.differing.length > 0) {
      throw new Error(
        `not provisioned as defined: ${describeVerification(report)}. The operator provisions ` +
          '(`npm run provision` as the NATS user operator); a service may create or change nothing',
      );
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.recheck);
    if (this.connected) await this.connected.connection.drain().catch(() => undefined);
  }
}
