/**
 * The provider could not answer now but may soon: a 429, a 502/503/504, no connection, no
 * answer in time. Worth retrying after `retryAfterMs` (the provider's Retry-After) or a
 * growing delay; any other model error fails the turn at once.
 */
export class ModelUnavailable extends Error {
  override readonly name = 'ModelUnavailable';

  constructor(
    message: string,
    readonly retryAfterMs?: number,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}

/** Retry-After is either delta-seconds or an HTTP date; anything else is ignored. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
