import { Gauge, type Registry } from 'prom-client';
import type { RateLimitPacer } from './rate-limit-pacer';

/** Buckets named at each scrape: the busiest, so one flooded channel cannot hide. */
const BUCKETS_SHOWN = 10;

/**
 * Names the rate-limit buckets calls wait on, read at each scrape: a bucket whose waiting
 * count or oldest wait keeps growing is a burst the platform is pacing (one channel, one
 * workspace), and everything else still flows past it.
 */
export function observePacing(registry: Registry, pacer: RateLimitPacer): void {
  new Gauge({
    name: 'tollgate_pacing_waiting',
    help: 'Platform calls waiting for room in a rate-limit bucket (the busiest buckets)',
    labelNames: ['bucket'],
    registers: [registry],
    collect(this: Gauge<'bucket'>): void {
      this.reset();
      for (const b of pacer.backlog(BUCKETS_SHOWN)) this.set({ bucket: b.key }, b.waiting);
    },
  });
  new Gauge({
    name: 'tollgate_pacing_oldest_wait_seconds',
    help: 'How long the oldest call waiting on a rate-limit bucket has waited (the busiest buckets)',
    labelNames: ['bucket'],
    registers: [registry],
    collect(this: Gauge<'bucket'>): void {
      this.reset();
      for (const b of pacer.backlog(BUCKETS_SHOWN)) {
        this.set({ bucket: b.key }, b.oldestWaitMs / 1_000);
      }
    },
  });
}
