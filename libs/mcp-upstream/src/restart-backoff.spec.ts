import { restartDelayMs } from './restart-backoff';

describe('M3 — restartDelayMs', () => {
  it('doubles from the base on each failure in a row, up to the cap', () => {
    const settings = { baseMs: 100, maxMs: 1_000 };
    expect([1, 2, 3, 4, 5, 6, 50].map((n) => restartDelayMs(n, settings))).toEqual([
      100, 200, 400, 800, 1_000, 1_000, 1_000,
    ]);
  });
});
