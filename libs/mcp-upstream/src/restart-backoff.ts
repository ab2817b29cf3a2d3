export interface BackoffSettings {
  readonly baseMs: number;
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffSettings = { baseMs: 500, maxMs: 30_000 };

/**
 * Delay before restart attempt `attempt` (1 for the first restart after a failure): doubling
 * from the base, capped, so a server that dies at start is not respawned in a tight loop.
 */
export function restartDelayMs(
  attempt: number,
  settings: BackoffSettings = DEFAULT_BACKOFF,
): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 30));
  return Math.min(settings.maxMs, settings.baseMs * 2 ** exponent);
}
