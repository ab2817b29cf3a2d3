import { MAX_RETRY_AFTER_MS, retryDelayMs } from './retry-delay';

describe('retryDelayMs', () => {
  const policy = { baseMs: 100, maxMs: 1_000 };
  const noJitter = (): number => 0;

  it('doubles with every delivery from the base', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, policy, 0, noJitter))).toEqual([
      100, 200, 400, 800,
    ]);
  });

  it('is capped, even with jitter and after very many deliveries', () => {
    expect(retryDelayMs(5, policy, 0, noJitter)).toBe(1_000);
    expect(retryDelayMs(5, policy, 0, () => 0.99)).toBe(1_000);
    expect(retryDelayMs(5_000, policy, 0, noJitter)).toBe(1_000);
  });

  it('adds at most 10 % jitter', () => {
    expect(retryDelayMs(1, policy, 0, () => 0.5)).toBe(105);
    expect(retryDelayMs(1, policy, 0, () => 0.999)).toBeLessThanOrEqual(110);
  });

  it('never waits less than a given retry-after, even beyond the cap', () => {
    expect(retryDelayMs(1, policy, 450, noJitter)).toBe(450);
    expect(retryDelayMs(1, policy, 5_000, noJitter)).toBe(5_000);
  });

  it('treats a missing delivery count as the first delivery', () => {
    expect(retryDelayMs(0, policy, 0, noJitter)).toBe(100);
  });
});

describe('D4 — a Retry-After that is no number', () => {
  const policy = { baseMs: 1_000, maxMs: 300_000 };
  it('D4 a NaN Retry-After is ignored and an infinite one capped, so the delay stays finite', () => {
    expect(retryDelayMs(1, policy, Number.NaN, () => 0)).toBe(1_000);
    expect(retryDelayMs(1, policy, Number.POSITIVE_INFINITY, () => 0)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryDelayMs(1, policy, -5, () => 0)).toBe(1_000);
  });
});
