import type { Consumer } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import type { ConsumerProgress } from './consumer-runner.options';

/**
 * Why this file exists: a consumer whose messages are all retried (poison misread as
 * transient, a dependency refusing one kind of message) looks alive — it pulls, naks,
 * pulls — while nothing moves. This watches the durable's backlog against the last time a
 * message was settled for good, so readiness and metrics can say "stalled" (X8).
 */
export class ConsumerProgressWatch {
  private backlog = 0;
  private lastProgressAt = Date.now();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly logger: Logger,
    private readonly stallAfterMs: number,
    private readonly checkEveryMs: number,
  ) {}

  /** Starts reading the durable's backlog every checkEveryMs; the clock starts now. */
  start(consumer: Consumer): void {
    this.lastProgressAt = Date.now();
    const check = async (): Promise<void> => {
      try {
        const info = await consumer.info(false);
        this.backlog = info.num_pending + info.num_ack_pending;
        // Idle is not stalled: the clock starts when work shows up.
        if (this.backlog === 0) this.lastProgressAt = Date.now();
      } catch (error) {
        this.logger.debug({ err: error }, 'reading the consumer backlog failed');
      }
    };
    this.timer = setInterval(() => void check(), this.checkEveryMs);
    this.timer.unref();
    void check();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** A message was settled for good (acked or dead-lettered). */
  moved(): void {
    this.lastProgressAt = Date.now();
  }

  /** Stalled only while `running`: a draining or stopped runner is not expected to move. */
  read(running: boolean): ConsumerProgress {
    const msSinceProgress = Date.now() - this.lastProgressAt;
    return {
      backlog: this.backlog,
      msSinceProgress,
      stalled: running && this.backlog > 0 && msSinceProgress > this.stallAfterMs,
    };
  }
}
