/** The longest pause between two attempts of one delivery. */
export const MAX_WEBHOOK_DELAY_MS = 3_600_000;

/**
 * The pause after the n-th failed attempt: base · 2^(n-1), at most an hour, so a receiver that
 * is down for a day is still tried every hour until the delivery's 24 hours are up.
 */
export function webhookRetryDelayMs(failedAttempts: number, baseMs: number): number {
  const exponent = Math.min(Math.max(failedAttempts - 1, 0), 30);
  return Math.min(baseMs * 2 ** exponent, MAX_WEBHOOK_DELAY_MS);
}
