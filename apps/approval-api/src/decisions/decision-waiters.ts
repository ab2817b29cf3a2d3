import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import {
  type BaseConfig,
  DatabaseClient,
  MetricsService,
  ReadinessService,
  SERVICE_CONFIG,
  SERVICE_LOGGER,
} from '@tollgate/service-runtime';
import { Client } from 'pg';
import { Gauge } from 'prom-client';
import type { Logger } from 'pino';

/** One PostgreSQL channel for every deployment in the database; the payload names the schema. */
export const DECIDED_CHANNEL = 'tollgate_approval_decided';
const RECONNECT_MS = 1_000;

export interface Wait {
  /** Resolves when the approval may have changed, at the deadline, or on shutdown. */
  readonly settled: Promise<void>;
  cancel(): void;
}

/**
 * Wakes long polls and held hooks on every replica within milliseconds of a decision: the
 * replica that applies a decision (or a cancel) NOTIFYs in the same transaction, and every
 * replica LISTENs on one connection of its own. A wait is a promise and a timer, no query
 * loop, so a thousand held requests cost a thousand small objects. A lost listening
 * connection wakes every waiter to read again, since notifications may have been missed.
 */
@Injectable()
export class DecisionWaiters
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly waiters = new Map<string, Set<() => void>>();
  private listener?: Client;
  private listening = false;
  private stopped = false;
  private readonly logger: Logger;

  constructor(
    @Inject(SERVICE_CONFIG) private readonly config: BaseConfig,
    @Inject(SERVICE_LOGGER) logger: Logger,
    private readonly database: DatabaseClient,
    readiness: ReadinessService,
    metrics: MetricsService,
  ) {
    this.logger = logger.child({ component: 'decision-waiters' });
    readiness.register({ name: 'decision-listener', check: () => this.listening });
    const held = () => this.held;
    new Gauge({
      name: 'tollgate_approval_waits_held',
      help: 'Long polls and runtime hooks this replica holds open, waiting for a decision',
      registers: [metrics.registry],
      collect(this: Gauge) {
        this.set(held());
      },
    });
  }

  onApplicationBootstrap(): void {
    void this.database.whenReady().then(() => this.listen());
  }

  /** The payload a NOTIFY carries for `approvalId` in this deployment's schema. */
  notification(approvalId: string): { channel: string; payload: string } {
    return { channel: DECIDED_CHANNEL, payload: `${this.config.DATABASE_SCHEMA}/${approvalId}` };
  }

  get shuttingDown(): boolean {
    return this.stopped;
  }

  get held(): number {
    let count = 0;
    for (const set of this.waiters.values()) count += set.size;
    return count;
  }

  wait(approvalId: string, timeoutMs: number): Wait {
    let done!: () => void;
    const settled = new Promise<void>((resolve) => (done = resolve));
    if (this.stopped) {
      done();
      return { settled, cancel: () => undefined };
    }
    let set = this.waiters.get(approvalId);
    if (set === undefined) {
      set = new Set();
      this.waiters.set(approvalId, set);
    }
    const waiters = set;
    const finish = () => {
      clearTimeout(timer);
      waiters.delete(finish);
      if (waiters.size === 0 && this.waiters.get(approvalId) === waiters)
        this.waiters.delete(approvalId);
      done();
    };
    const timer = setTimeout(finish, timeoutMs);
    waiters.add(finish);
    return { settled, cancel: finish };
  }

  /** Wakes this replica's waiters for the approval at once (the NOTIFY reaches the others). */
  wake(approvalId: string): void {
    for (const finish of [...(this.waiters.get(approvalId) ?? [])]) finish();
  }

  private wakeAll(): void {
    for (const id of [...this.waiters.keys()]) this.wake(id);
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({
      connectionString: this.config.DATABASE_URL,
      application_name: `${this.config.service}-listen`,
    });
    this.listener = client;
    const prefix = `${this.config.DATABASE_SCHEMA}/`;
    client.on('notification', (message) => {
      if (message.channel === DECIDED_CHANNEL && message.payload?.startsWith(prefix))
        this.wake(message.payload.slice(prefix.length));
    });
    const lost = (error?: unknown) => {
      if (this.listener !== client) return;
      this.listening = false;
      this.listener = undefined;
      client.removeAllListeners('error');
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({ err: error }, 'lost the decision listener; reconnecting');
      this.wakeAll();
      setTimeout(() => void this.listen(), RECONNECT_MS).unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${DECIDED_CHANNEL}`);
      this.listening = true;
      // Anything decided while no one listened is read again by its waiters.
      this.wakeAll();
    } catch (error) {
      lost(error);
    }
  }

  /** Held requests answer with what they have before the server stops taking connections. */
  beforeApplicationShutdown(): void {
    this.stopped = true;
    this.wakeAll();
  }

  async onApplicationShutdown(): Promise<void> {
    const client = this.listener;
    this.listener = undefined;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }
}
