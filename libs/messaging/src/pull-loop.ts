import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import type { Logger } from 'pino';

/**
 * Why this file exists: pulling is its own job — ask for the free slots (and, through a
 * backlog triage sets aside, for more), pull again after a failure or an empty pull without
 * spinning, and stop at once when drain begins — apart from what the runner does with each
 * message it is handed.
 */

/** What the loop asks of the runner it feeds. */
export interface PullTarget {
  isRunning(): boolean;
  /** Messages the runner may still take on now. */
  freeSlots(): number;
  /**
   * Free slots worth a pull (at least 1): with room to hold more than it runs, the runner
   * still has queued work while a few slots are free, and one pull per freed slot would cost
   * a request and a subscription per message.
   */
  refillAt(): number;
  /** Takes a message; whether it holds it (false: triage or admission set it aside). */
  accept(msg: JsMsg): boolean;
}

/**
 * Messages one pull may ask for beyond the free slots while the messages before it were all
 * (mostly) set aside as they arrived. A restart's backlog of refreshes is set aside (parked, acked)
 * without a slot; asking only for the free slots crossed it a few dozen per round trip, and
 * a new prompt behind 10,000 of them waited for hundreds of round trips (P5). The bound is
 * what the runner may hold beyond its limit if a pull asked on that guess turns out to be
 * work after all; those are kept alive like any held message and never outlive ack_wait.
 */
export const MAX_SET_ASIDE_SURPLUS = 512;

export class PullLoop {
  private batch?: ConsumerMessages;
  private wakeOnFreeSlot?: () => void;
  private wakeFromPause?: () => void;
  /** Beyond the free slots, what the next pull asks for: grows while pulls are set aside. */
  private surplus = 0;

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
      let held = 0;
      const asked = this.toAsk();
      try {
        // Asking for the free slots keeps the runner from holding messages it is not yet
        // working on; the surplus only follows pulls that were set aside whole.
        const batch = await consumer.fetch({ max_messages: asked, expires: this.pullExpiresMs });
        this.batch = batch;
        if (!this.target.isRunning()) void batch.close();
        for await (const msg of batch) {
          received += 1;
          if (this.target.accept(msg)) held += 1;
        }
      } catch (error) {
        this.surplus = 0;
        if (!this.target.isRunning()) return;
        // Missed heartbeats while NATS is away, a deleted consumer, a timeout: pull again.
        this.logger.warn({ err: error }, 'pull failed; pulling again shortly');
        await this.pause(this.restartDelayMs);
        continue;
      } finally {
        this.batch = undefined;
      }
      this.surplus = nextSurplus(asked, received, held);
      // A pull that ends empty at once would otherwise spin.
      if (received === 0 && Date.now() - startedAt < 100) await this.pause(this.restartDelayMs);
    }
  }

  /** A slot came free: a loop waiting for enough of them pulls again. */
  slotFreed(): void {
    if (this.toAsk() >= (this.surplus > 0 ? 1 : this.target.refillAt())) this.wakeOnFreeSlot?.();
  }

  /** Drain began (the target no longer runs): end any wait and the pull under way. */
  stop(): void {
    this.wakeOnFreeSlot?.();
    this.wakeFromPause?.();
    void this.batch?.close();
  }

  /**
   * The free slots, plus the surplus while pulls are set aside; never so many that the
   * messages held could pass their limit by more than MAX_SET_ASIDE_SURPLUS.
   */
  private toAsk(): number {
    const free = this.target.freeSlots();
    return Math.min(Math.max(free, 0) + this.surplus, free + MAX_SET_ASIDE_SURPLUS);
  }

  private freeSlot(): Promise<void> {
    const ready = this.toAsk() >= (this.surplus > 0 ? 1 : this.target.refillAt());
    if (!this.target.isRunning() || ready) return Promise.resolve();
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

/**
 * A full pull mostly set aside predicts a backlog triage keeps setting aside (a pacer lets a
 * few refreshes through now and then): ask for twice as many beyond the free slots next time,
 * up to MAX_SET_ASIDE_SURPLUS. A pull mostly held, or come back short (the backlog is
 * crossed), asks for the free slots again.
 */
export function nextSurplus(asked: number, received: number, held: number): number {
  const setAside = received - held;
  if (received < asked || setAside * 2 < received) return 0;
  return Math.min(MAX_SET_ASIDE_SURPLUS, Math.max(setAside, 1) * 2);
}
