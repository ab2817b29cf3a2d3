import { retryDelayMs } from '@tollgate/messaging';
import { MAX_DELIVER } from '@tollgate/protocol';

/**
 * docs/architecture.md §4.1: a transient platform failure is retried for at least a day before
 * its message is dead-lettered. The binding takes the runner's policy as it is, so this
 * checks the arithmetic of that policy with the values the binding runs with.
 */
const RUNNER_MAX_DELAY_MS = 5 * 60_000; // ConsumerRunner's default retryMaxMs
const DAY_MS = 24 * 60 * 60_000;

/** The time spent waiting between deliveries before the last one, without jitter. */
function horizonMs(baseMs: number, retryAfterMs = 0): number {
  let total = 0;
  for (let delivery = 1; delivery < MAX_DELIVER; delivery += 1) {
    total += retryDelayMs(delivery, { baseMs, maxMs: RUNNER_MAX_DELAY_MS }, retryAfterMs, () => 0);
  }
  return total;
}

describe('how long a binding retries a transient platform failure', () => {
  it('B12 retries for more than a day with the default 1 s base (about 82.6 hours)', () => {
    expect(MAX_DELIVER).toBe(1000);
    const total = horizonMs(1_000);
    expect(total).toBe((1 + 2 + 4 + 8 + 16 + 32 + 64 + 128 + 256) * 1_000 + 990 * 300_000);
    expect(total).toBeGreaterThan(3 * DAY_MS);
  });

  it.each([1, 50, 60_000, 300_000])(
    'B12 retries for more than a day with a %i ms base',
    (baseMs) => {
      expect(horizonMs(baseMs)).toBeGreaterThan(DAY_MS);
    },
  );

  it('B12 a Retry-After only lengthens the wait', () => {
    expect(horizonMs(1_000, 30_000)).toBeGreaterThanOrEqual(horizonMs(1_000));
  });
});
