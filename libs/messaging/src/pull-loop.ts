import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import type { Logger } from 'pino';

/**
 * Why this file exists: pulling is its own job — ask for exactly the free slots, pull again
 * after a failure or an empty pull without spinning, and stop at once when drain begins —
 * apart from what the runner does with each message it is handed.
 */

/** What the loop asks of the runner it feeds. */
export interface PullTarget {
  isRunning(): boolean;
  /** Messages the runner may still take on now. */
  freeSlots(): number;
  accept(msg: JsMsg): void;
}

export class PullLoop {
  private batch?: ConsumerMessages;
  private wakeOnFreeSlot?: () => void;
  private wakeFromPause?: () => void;

  constructor(
    private readonly target: PullTarget,
    private readonly logger: Logger,
    private readonly pullExpiresMs: number,
    private readonly restartDelayMs: number,
  ) {}

  async run(consumer: Consumer): Promise<void> {
    while (this.target.isRunning()) {
      await this.freeSlot();
      if (!this.target.isRunning()) return;
      const startedAt = Date.now();
      let received = 0;
      try {
        // Asking for exactly the free slots keeps the runner from holding messages it is
        // not yet working on while their ack_wait runs out.
        const batch = await consumer.fetch({
          max_messages: this.target.freeSlots(),
          expires: this.pullExpiresMs,
        });
        this.batch = batch;
        if (!this.target.isRunning()) void batch.close();
        for await (const msg of batch) {
          received += 1;
          this.target.accept(msg);
        }
      } catch (error) {
        if (!this.target.isRunning()) return;
        // Missed heartbeats while NATS is away, a deleted consumer, a timeout: pull again.
        this.logger.warn({ err: error }, 'pull failed; pulling again shortly');
        await this.pause(this.restartDelayMs);
        continue;
      } finally {
        this.batch = undefined;
      }
      // A pull that ends empty at once would otherwise spin.
      if (received === 0 && Date.now() - startedAt < 100) await this.pause(this.restartDelayMs);
    }
  }

  /** A slot came free: a loop waiting for one pulls again. */
  slotFreed(): void {
    this.wakeOnFreeSlot?.();
  }

  /** Drain began (the target no longer runs): end any wait and the pull under way. */
  stop(): void {
    this.wakeOnFreeSlot?.();
    this.wakeFromPause?.();
    void this.batch?.close();
  }

  private freeSlot(): Promise<void> {
    if (!this.target.isRunning() || this.target.freeSlots() > 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.wakeOnFreeSlot = () => {
        this.wakeOnFreeSlot = undefined;
        resolve();
      };
    });
  }

  private pause(ms: number): Promise<void> {
    if (!this.target.isRunning()) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wakeFromPause?.(), ms);
      this.wakeFromPause = () => {
        clearTimeout(timer);
        this.wakeFromPause = undefined;
        resolve();
      };
    });
  }
}
