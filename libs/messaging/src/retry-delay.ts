export interface RetryDelayPolicy {
  baseMs: number;
  maxMs: number;
}

/**
 * The nak delay after a transient failure: doubles with every delivery from `baseMs`, capped
 * at `maxMs`, plus up to 10 % jitter so replicas that failed together do not retry together.
 * A `retryAfterMs` from the failing dependency (e.g. HTTP Retry-After) is a floor.
 */
/**
 * The longest a Retry-After may push a retry out. A header that does not parse (NaN) is
 * ignored and one that says "for ever" is read as this, so no message waits for good.
 */
export const MAX_RETRY_AFTER_MS = 15 * 60_000;

export function retryDelayMs(
  deliveryCount: number,
  policy: RetryDelayPolicy,
  retryAfterMs = 0,
  random: () => number = Math.random,
): number {
  const attempt = Math.max(1, deliveryCount);
  const grown = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
  const jittered = Math.min(policy.maxMs, grown * (1 + 0.1 * random()));
  const floor = Number.isNaN(retryAfterMs)
    ? 0
    : Math.min(MAX_RETRY_AFTER_MS, Math.max(0, retryAfterMs));
  return Math.round(Math.max(jittered, floor));
}
