import type { Logger } from 'pino';

/**
 * Retries a start-up step until it succeeds or the service stops: a dependency that is not
 * there yet makes the service unready, not dead, so an orchestrator starting everything at
 * once converges without restarts.
 */
export async function retryUntilStopped<T>(
  what: string,
  step: () => Promise<T>,
  options: { logger: Logger; stopped: () => boolean; firstDelayMs?: number; maxDelayMs?: number },
): Promise<T | undefined> {
  let delay = options.firstDelayMs ?? 200;
  for (;;) {
    if (options.stopped()) return undefined;
    try {
      return await step();
    } catch (error) {
      options.logger.warn({ err: error, retryInMs: delay }, `${what} failed; retrying`);
    }
    await new Promise((resolve) => setTimeout(resolve, delay).unref());
    delay = Math.min(delay * 2, options.maxDelayMs ?? 5_000);
  }
}
