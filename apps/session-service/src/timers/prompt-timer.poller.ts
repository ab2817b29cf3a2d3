import type { Logger } from 'pino';
import type { ClaimedPromptTimer, PromptTimerRepository } from '../journal/prompt-timer.repository';

export interface PromptTimerPollerOptions {
  readonly repository: Pick<PromptTimerRepository, 'claimDue' | 'settle'>;
  /**
   * Decides one due timer through the session's scheduler, under the timer's ledger key;
   * resolves once it is settled (decided, a duplicate, or a quarantined session).
   */
  readonly fire: (claimed: ClaimedPromptTimer) => Promise<void>;
  readonly logger: Logger;
  /** Injected so tests move time instead of waiting for it. */
  readonly now?: () => Date;
  readonly intervalMs: number;
  /** How long a claim keeps other pollers off a row; a dead poller's rows come back after it. */
  readonly leaseMs?: number;
  readonly batchSize?: number;
}

const DEFAULT_LEASE_MS = 5 * 60_000;
const DEFAULT_BATCH = 100;

/**
 * S22: fires the reminders and deadlines of pending prompts. Runs only in the active
 * instance (a standby fires nothing). Each tick claims the due rows, has each decided in its
 * session's order, and deletes a row only once its decision is settled: a crash in between
 * leaves the row, which fires again after its lease and is then a duplicate in the command
 * ledger, so every timer takes effect once.
 */
export class PromptTimerPoller {
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<number>;
  private stopped = false;
  private readonly now: () => Date;
  private readonly logger: Logger;

  constructor(private readonly options: PromptTimerPollerOptions) {
    this.now = options.now ?? (() => new Date());
    this.logger = options.logger.child({ component: 'prompt-timer-poller' });
  }

  /** Ticks now, then every `intervalMs`; a tick still running makes the next one wait. */
  start(): void {
    if (this.stopped || this.timer) return;
    const run = () => {
      if (this.stopped || this.ticking) return;
      this.tick().catch((error: unknown) =>
        this.logger.warn({ err: error }, 'firing prompt timers failed; trying again'),
      );
    };
    this.timer = setInterval(run, this.options.intervalMs);
    this.timer.unref();
    run();
  }

  /** Stops ticking. A firing under way is left to finish or, if it cannot, to its lease. */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** Claims and fires every timer due now; resolves with how many were settled. */
  tick(): Promise<number> {
    if (this.ticking) return this.ticking;
    const ticking = this.fireDue().finally(() => (this.ticking = undefined));
    this.ticking = ticking;
    return ticking;
  }

  private async fireDue(): Promise<number> {
    const { repository, leaseMs = DEFAULT_LEASE_MS, batchSize = DEFAULT_BATCH } = this.options;
    let settled = 0;
    for (;;) {
      if (this.stopped) return settled;
      const due = await repository.claimDue(this.now(), leaseMs, batchSize);
      const results = await Promise.all(due.map((claimed) => this.fireOne(claimed)));
      settled += results.filter(Boolean).length;
      // A full page may hide more due rows; a short one, or one that all failed, ends the tick.
      if (due.length < batchSize || !results.some(Boolean)) return settled;
    }
  }

  private async fireOne(claimed: ClaimedPromptTimer): Promise<boolean> {
    const { sessionId, timer } = claimed;
    try {
      await this.options.fire(claimed);
      await this.options.repository.settle(claimed);
      this.logger.info({ sessionId, callId: timer.callId, kind: timer.kind }, 'prompt timer fired');
      return true;
    } catch (error) {
      // The row stays claimed until its lease runs out, then fires again (once, by the ledger).
      this.logger.warn(
        { err: error, sessionId, callId: timer.callId, kind: timer.kind },
        'a prompt timer could not be decided; it is tried again after its lease',
      );
      return false;
    }
  }
}
