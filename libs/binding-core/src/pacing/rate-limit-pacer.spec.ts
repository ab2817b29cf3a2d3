import { RateLimitPacer, type RateBucket } from './rate-limit-pacer';

const tier3: RateBucket = { key: 'slack:T1:chat.update', limit: 50, windowMs: 60_000 };

/** The most calls any window of `windowMs` holds, over start times in ms. */
function busiestWindow(starts: number[], windowMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let busiest = 0;
  for (let i = 0, j = 0; i < sorted.length; i += 1) {
    while (sorted[j] <= sorted[i] - windowMs) j += 1;
    busiest = Math.max(busiest, i - j + 1);
  }
  return busiest;
}

describe('P5 — the rate-limit pacer', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('P5 urgent calls never exceed a bucket’s limit in any window, and go in order', async () => {
    const pacer = new RateLimitPacer();
    const starts: number[] = [];
    const order: number[] = [];
    const calls = Array.from({ length: 200 }, (_, n) =>
      pacer.take([tier3], 'urgent').then(() => {
        starts.push(Date.now());
        order.push(n);
      }),
    );
    await jest.advanceTimersByTimeAsync(5 * 60_000);
    await Promise.all(calls);
    expect(busiestWindow(starts, 60_000)).toBeLessThanOrEqual(50);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('P5 refreshes use only part of a bucket and never go before a waiting urgent call', async () => {
    const pacer = new RateLimitPacer();
    const log: string[] = [];
    // Refreshes admitted while the bucket is idle.
    let admitted = 0;
    while (pacer.admitRefresh([tier3])) admitted += 1;
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThan(5);
    const refreshes = Array.from({ length: admitted }, () =>
      pacer.take([tier3], 'refresh').then(() => log.push('refresh')),
    );
    // Urgent work arriving now overtakes every refresh still waiting.
    const urgent = Array.from({ length: 5 }, () =>
      pacer.take([tier3], 'urgent').then(() => log.push('urgent')),
    );
    await jest.advanceTimersByTimeAsync(60_000);
    await Promise.all([...refreshes, ...urgent]);
    const lastUrgent = log.lastIndexOf('urgent');
    expect(log.slice(lastUrgent + 1).every((kind) => kind === 'refresh')).toBe(true);
    expect(log.slice(0, lastUrgent).filter((kind) => kind === 'refresh').length).toBeLessThan(
      admitted,
    );
    // While an urgent call waits, no refresh is admitted.
    void pacer.take([tier3], 'urgent');
    void pacer.take([tier3], 'urgent');
    void pacer.take([tier3], 'urgent');
    expect(pacer.admitRefresh([tier3])).toBe(false);
  });

  it('P5 a call waiting on one bucket does not hold up calls on another', async () => {
    const pacer = new RateLimitPacer();
    const update: RateBucket = { key: 'update', limit: 1, windowMs: 60_000 };
    const post: RateBucket = { key: 'post', limit: 5, windowMs: 5_000 };
    await pacer.take([update], 'urgent');
    let updated = false;
    let posted = false;
    void pacer.take([update], 'urgent').then(() => (updated = true));
    void pacer.take([post], 'urgent').then(() => (posted = true));
    await jest.advanceTimersByTimeAsync(10);
    expect({ updated, posted }).toEqual({ updated: false, posted: true });
  });

  it('P5 a 429 is a signal: its buckets stop for the Retry-After', async () => {
    const pacer = new RateLimitPacer();
    pacer.blocked([tier3], 3_000);
    let started = false;
    void pacer.take([tier3], 'urgent').then(() => (started = true));
    await jest.advanceTimersByTimeAsync(2_900);
    expect(started).toBe(false);
    await jest.advanceTimersByTimeAsync(200);
    expect(started).toBe(true);
    expect(pacer.admitRefresh([tier3])).toBe(true);
  });

  it('P5 the window divisor scales every window, for tests and benches', async () => {
    const pacer = new RateLimitPacer({ windowDivisor: 60 });
    const starts: number[] = [];
    const calls = Array.from({ length: 100 }, () =>
      pacer.take([tier3], 'urgent').then(() => starts.push(Date.now())),
    );
    await jest.advanceTimersByTimeAsync(10_000);
    await Promise.all(calls);
    // 50 per minute ÷ 60 = 50 per second.
    expect(busiestWindow(starts, 1_000)).toBeLessThanOrEqual(50);
    expect(Math.max(...starts) - Math.min(...starts)).toBeLessThan(3_000);
  });
});

describe('D4 — the pacer names its waiting buckets and survives a bad Retry-After', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  const channel: RateBucket = { key: 'slack:T1:chat.postMessage:C1', limit: 5, windowMs: 5_000 };
  const other: RateBucket = { key: 'slack:T2:chat.postMessage:C9', limit: 5, windowMs: 5_000 };

  it.each([
    ['NaN', Number.NaN, 1_000],
    ['Infinity', Number.POSITIVE_INFINITY, 15 * 60_000],
    ['negative', -5_000, 0],
  ])(
    'D4 a Retry-After of %s stops a bucket for a finite time',
    async (_, retryAfterMs, pauseMs) => {
      const pacer = new RateLimitPacer();
      pacer.blocked([channel], retryAfterMs);
      let started = false;
      void pacer.take([channel], 'urgent').then(() => (started = true));
      await jest.advanceTimersByTimeAsync(Math.max(0, pauseMs - 100));
      expect(started).toBe(pauseMs === 0);
      await jest.advanceTimersByTimeAsync(200);
      expect(started).toBe(true);
    },
  );

  it('D4 tryTake starts a call only when its bucket has room; enqueue waits in line; backlog names the bucket', async () => {
    const pacer = new RateLimitPacer();
    const first = pacer.tryTake([channel], 'urgent');
    expect(first).toBe(true);
    expect(pacer.tryTake([channel], 'urgent')).toBe(false);
    const waiting = [pacer.enqueue([channel], 'urgent'), pacer.enqueue([channel], 'urgent')];
    // Another bucket is not held up by this one's line.
    expect(pacer.tryTake([other], 'urgent')).toBe(true);
    await jest.advanceTimersByTimeAsync(500);
    expect(pacer.backlog()).toEqual([{ key: channel.key, waiting: 2, oldestWaitMs: 500 }]);
    await jest.advanceTimersByTimeAsync(5_000);
    await Promise.all(waiting);
    expect(pacer.backlog()).toEqual([]);
  });
});

describe('D4 — a shared bucket is not held by a call waiting on its own', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('D4 a call waiting on its channel route does not hold the global bucket another channel needs', async () => {
    const pacer = new RateLimitPacer();
    const global: RateBucket = { key: 'discord:global', limit: 50, windowMs: 1_000 };
    const busy: RateBucket = { key: 'discord:POST channels/1/messages', limit: 5, windowMs: 5_000 };
    const quiet: RateBucket = {
      key: 'discord:POST channels/2/messages',
      limit: 5,
      windowMs: 5_000,
    };
    expect(pacer.tryTake([global, busy], 'urgent')).toBe(true);
    let busyStarted = false;
    let quietStarted = false;
    void pacer.enqueue([global, busy], 'urgent').then(() => (busyStarted = true));
    if (!pacer.tryTake([global, quiet], 'urgent')) {
      void pacer.enqueue([global, quiet], 'urgent').then(() => (quietStarted = true));
    } else quietStarted = true;
    await jest.advanceTimersByTimeAsync(100);
    expect(quietStarted).toBe(true);
    expect(busyStarted).toBe(false);
    await jest.advanceTimersByTimeAsync(1_200);
    expect(busyStarted).toBe(true);
  });

  it('P5 a window shorter than a timer tick (a bench’s divisor) runs a tick ahead, not two calls a tick', async () => {
    const pacer = new RateLimitPacer({ windowDivisor: 1_000_000 });
    let started = 0;
    const calls = Array.from({ length: 500 }, () =>
      pacer.take([tier3], 'urgent').then(() => (started += 1)),
    );
    await jest.advanceTimersByTimeAsync(0);
    // The bucket's whole window is 0.06 ms: every call starts within the first tick or two.
    await jest.advanceTimersByTimeAsync(2);
    expect(started).toBe(500);
    await Promise.all(calls);
    // A window a timer can pace keeps its burst: Slack's chat.update at the tests' divisor.
    const paced = new RateLimitPacer({ windowDivisor: 1_000 });
    let released = 0;
    const early = Array.from({ length: 10 }, () =>
      paced.take([tier3], 'urgent').then(() => (released += 1)),
    );
    await jest.advanceTimersByTimeAsync(0);
    expect(released).toBeLessThanOrEqual(2);
    await jest.advanceTimersByTimeAsync(60);
    await Promise.all(early);
    expect(released).toBe(10);
  });
});
