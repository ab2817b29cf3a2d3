import type { JetStreamPublisher } from '@tollgate/messaging';
import { continueTrace } from '@tollgate/telemetry';
import { Client } from 'pg';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';

export interface OutboxRelayOptions {
  dataSource: DataSource;
  /** For the LISTEN connection, which must not come from the pool. */
  databaseUrl: string;
  channel: string;
  publisher: () => JetStreamPublisher;
  logger: Logger;
  batchSize?: number;
  /** Polling fallback: the relay also looks this often when no notification came. */
  pollIntervalMs?: number;
}

interface OutboxRow {
  position: string;
  id: string;
  subject: string;
  payload: string;
  traceparent: string | null;
}

const encoder = new TextEncoder();

/**
 * Publishes committed outbox rows to JetStream with `Nats-Msg-Id` = output id, then marks
 * them sent. Woken by NOTIFY on its own connection, with polling as a fallback. Rows are
 * claimed with FOR UPDATE SKIP LOCKED, so a second relay never blocks on the first. A crash
 * between publish and mark re-publishes, and JetStream's dedupe by id drops the repeat.
 * While NATS is away the rows wait; nothing is lost.
 */
export class OutboxRelay {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private pending = true;
  private listener?: Client;
  private poll?: NodeJS.Timeout;
  private readonly batchSize: number;
  private readonly logger: Logger;

  constructor(private readonly options: OutboxRelayOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.logger = options.logger.child({ component: 'outbox-relay' });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.listen();
    this.poll = setInterval(() => this.nudge(), this.options.pollIntervalMs ?? 1_000);
    this.poll.unref();
    this.loop = this.run();
  }

  /** Asks for a pass soon; cheap and safe to call from anywhere. */
  nudge(): void {
    this.pending = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.poll) clearInterval(this.poll);
    this.wake?.();
    await this.loop;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      if (!this.pending) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      this.pending = false;
      try {
        const sent = await this.pass();
        failures = 0;
        if (sent === this.batchSize) this.pending = true;
      } catch (error) {
        failures += 1;
        const delay = Math.min(100 * 2 ** failures, 5_000);
        this.logger.warn({ err: error, retryInMs: delay }, 'outbox relay pass failed; retrying');
        this.pending = true;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private async pass(): Promise<number> {
    return this.options.dataSource.transaction(async (manager) => {
      const rows: OutboxRow[] = await manager.query(
        `SELECT position, id, subject, payload, traceparent FROM outbox
         WHERE sent_at IS NULL ORDER BY position LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.batchSize],
      );
      if (rows.length === 0) return 0;
      const publisher = this.options.publisher();
      // Published back to back on one connection, so JetStream stores them in order. Each
      // publish continues the trace of the decision that queued its row.
      await Promise.all(
        rows.map((row) =>
          continueTrace(row.traceparent, () =>
            publisher.publish(row.subject, encoder.encode(row.payload), { msgId: row.id }),
          ),
        ),
      );
      await manager.query(`UPDATE outbox SET sent_at = now() WHERE position = ANY($1::bigint[])`, [
        rows.map((r) => r.position),
      ]);
      return rows.length;
    });
  }

  private async listen(): Promise<void> {
    while (this.running) {
      const client = new Client({ connectionString: this.options.databaseUrl });
      try {
        await client.connect();
        client.on('notification', () => this.nudge());
        const closed = new Promise<void>((resolve) => {
          client.on('error', (error) => {
            this.logger.warn({ err: error }, 'outbox listener connection failed');
            resolve();
          });
          client.on('end', () => resolve());
        });
        await client.query(`LISTEN "${this.options.channel.replace(/"/g, '""')}"`);
        this.listener = client;
        if (!this.running) break;
        this.nudge();
        await closed;
      } catch (error) {
        this.logger.warn({ err: error }, 'outbox listener could not connect; polling meanwhile');
      }
      await client.end().catch(() => undefined);
      if (this.running) await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
