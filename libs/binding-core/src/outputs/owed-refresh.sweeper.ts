import { PermanentFailure } from '@tollgate/messaging';
import type { Logger } from 'pino';
import type { OwedRefresh, OwedRefreshes } from '../journal/owed-refreshes.port';
import type { RateLimitPacer } from '../pacing/rate-limit-pacer';
import type { PlatformAdapter } from '../platform-adapter.port';
import type { HandleOutput } from './handle-output.usecase';

export interface OwedRefreshSweeperDeps {
  readonly owed: OwedRefreshes;
  readonly handleOutput: HandleOutput;
  readonly pacer: RateLimitPacer;
  readonly adapter: PlatformAdapter;
  readonly replicaId: string;
  readonly leaseMs: number;
  readonly logger: Logger;
}

/** How often to look while refreshes are owed, and while none are. */
const BUSY_MS = 100;
const IDLE_MS = 250;
/** Refreshes taken in one look: as many as the platform has room for until the next look. */
const LOOKAHEAD_MS = 1.5 * BUSY_MS;
const PAGE = 50;
const MAX_SHOWING = 16;

/**
 * Shows parked refreshes (owed-refreshes) as the platform's limits leave room beside urgent
 * work, oldest first, each under a lease so two replicas never show the same one. A refresh
 * overtaken meanwhile (its prompt resolved) is dropped by the prompt's journal like any stale
 * output, so only a prompt's newest state is ever rendered.
 */
export class OwedRefreshSweeper {
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private readonly showing = new Set<Promise<void>>();

  constructor(private readonly deps: OwedRefreshSweeperDeps) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops looking and waits for the refreshes being shown. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.all([...this.showing]);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.sweep(), ms);
    this.timer.unref();
  }

  private async sweep(): Promise<void> {
    const { owed, pacer, adapter, replicaId, leaseMs, logger } = this.deps;
    let found = 0;
    try {
      if (this.showing.size < MAX_SHOWING) {
        const due = await owed.due(PAGE);
        found = due.length;
        const room = MAX_SHOWING - this.showing.size;
        const admitted = due
          .filter((item) =>
            pacer.admitRefresh(
              adapter.rateBuckets?.({
                effect: 'edit_prompt',
                conversation: item.output.conversation,
              }) ?? [],
              LOOKAHEAD_MS,
            ),
          )
          .slice(0, room);
        await Promise.all(
          admitted.map(async (item) => {
            if (this.stopped || !(await owed.lease(item, replicaId, leaseMs))) return;
            const shown: Promise<void> = this.show(item).finally(() => this.showing.delete(shown));
            this.showing.add(shown);
          }),
        );
      }
    } catch (error) {
      logger.warn({ err: error }, 'looking for owed refreshes failed');
    }
    this.schedule(found > 0 ? BUSY_MS : IDLE_MS);
  }

  private async show(item: OwedRefresh): Promise<void> {
    const { owed, handleOutput, logger } = this.deps;
    try {
      const handled = await handleOutput.handleOwed(item.output);
      await owed.done(item);
      logger.debug({ ...item.key, seq: item.seq, ...handled }, 'owed refresh handled');
    } catch (error) {
      if (error instanceof PermanentFailure) {
        // What the consumer would dead-letter: it can never be shown, so it is not kept.
        logger.error({ ...item.key, seq: item.seq, err: error }, 'owed refresh dropped');
        await owed.done(item).catch(() => undefined);
        return;
      }
      logger.debug({ ...item.key, seq: item.seq, err: error }, 'owed refresh not shown yet');
      await owed.release(item).catch(() => undefined);
    }
  }
}
