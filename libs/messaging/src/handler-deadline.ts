import { TransientFailure } from './failures';
import type { HandlerResult } from './handler-outcome.policy';

/**
 * Why this file exists: `working()` keeps a hung handler's message alive for ever, so the
 * runner bounds how long it waits for a result (docs/scenarios.md R5). A handler cannot be
 * cancelled, so past the deadline its late result is swallowed here; the runner's `settling`
 * flag keeps it from touching the message again.
 */

/** A handler that ran past the runner's deadline; retried like any transient failure. */
export class HandlerTimedOut extends TransientFailure {
  constructor(timeoutMs: number) {
    super(`handler_timeout: no result within ${timeoutMs} ms`);
  }
}

/** Runs `handle`, as failed with HandlerTimedOut if it has no result within `timeoutMs`. */
export async function handleWithin(
  timeoutMs: number,
  handle: () => Promise<void>,
): Promise<HandlerResult> {
  let deadline: NodeJS.Timeout | undefined;
  try {
    // Wrapped so a handler that throws synchronously is treated like one that rejects.
    const handled = Promise.resolve().then(handle);
    const timedOut = new Promise<never>((_, reject) => {
      deadline = setTimeout(() => reject(new HandlerTimedOut(timeoutMs)), timeoutMs);
      // The deadline alone is no reason to keep the process alive: a drain that gave up on
      // a hung handler (and naked its message) must let the service exit, not wait out the
      // handler's minutes. A handler doing real work holds its own sockets and timers.
      deadline.unref();
    });
    handled.catch(() => undefined);
    await Promise.race([handled, timedOut]);
    return { failed: false };
  } catch (failure) {
    return { failed: true, failure };
  } finally {
    clearTimeout(deadline);
  }
}
