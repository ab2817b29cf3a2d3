import fc from 'fast-check';
import type { RawHttpClient, RawRequest } from './raw-http.client';

export interface DriveOptions {
  readonly runs: number;
  readonly seed: number;
  /** Cases in flight at once, kept full: the next starts as soon as one ends. */
  readonly concurrency: number;
  /** A bound per endpoint, so a server that slows to a crawl fails instead of hanging. */
  readonly timeLimitMs: number;
  /** More to say when it fails (e.g. the server's last output). */
  readonly context?: () => string;
}

/**
 * Runs `handle` on `runs` cases of `cases`, drawn by fast-check with the seed (each case is one
 * property run, with fast-check's usual bias), keeping `concurrency` in flight: a run starts
 * its case and returns as soon as a place is free, so the next case is generated while the
 * others are answered. `handle` tells what was wrong with a case's answers, nothing when all
 * is well. At the first failure no new case starts, the ones in flight end, and it throws with
 * the seed and the first failures; likewise, as a failure, when the time limit runs out.
 *
 * Why not one property run per batch: a run waited for its batch's slowest request, then
 * generated the whole next batch synchronously with nothing in flight, so the server and the
 * test took turns idling at every boundary. A long synchronous batch also starved the
 * client's keep-alive timers, which retire a socket before the server's idle timeout, so it
 * reused sockets the server had already closed (the resets that reverted batches of 512 in
 * 2c1c6c9). Shrinking was never used (endOnFailure): a counterexample is a body up to a
 * mebibyte, and the bad answers say more.
 */
export async function drive<C>(
  name: string,
  cases: fc.Arbitrary<C>,
  options: DriveOptions,
  handle: (fuzzCase: C) => Promise<readonly string[]>,
): Promise<{ readonly cases: number; readonly seconds: number }> {
  const failures: string[] = [];
  const started = Date.now();
  let drawn = 0;
  let interrupted = false;
  const places = new Places(options.concurrency);
  const inFlight = new Set<Promise<void>>();
  await fc.assert(
    fc.asyncProperty(cases, async (fuzzCase) => {
      await places.take();
      if (failures.length > 0) {
        places.give();
        return false;
      }
      drawn += 1;
      const done: Promise<void> = handle(fuzzCase)
        .then(
          (bad) => void failures.push(...bad),
          (error: unknown) => void failures.push(`handling a case threw: ${String(error)}`),
        )
        .finally(() => {
          inFlight.delete(done);
          places.give();
        });
      inFlight.add(done);
      return true;
    }),
    {
      seed: options.seed,
      numRuns: options.runs,
      endOnFailure: true,
      interruptAfterTimeLimit: options.timeLimitMs,
      markInterruptAsFailure: true,
      // Told below, once the cases in flight have ended.
      reporter: (details) => {
        if (details.interrupted) interrupted = true;
      },
    },
  );
  await Promise.all([...inFlight]);
  if (failures.length > 0 || interrupted) {
    const why = interrupted ? `interrupted after ${options.timeLimitMs} ms` : 'failed';
    throw new Error(
      `${name} ${why} (seed ${options.seed}, ${drawn} of ${options.runs} cases sent); ` +
        `${failures.length} bad answers, first:\n` +
        failures.slice(0, 8).join('\n') +
        (options.context ? `\n${options.context()}` : ''),
    );
  }
  return { cases: drawn, seconds: (Date.now() - started) / 1000 };
}

/** A counting semaphore: `take` waits until one of `count` places is free. */
class Places {
  private readonly waiting: (() => void)[] = [];

  constructor(private free: number) {}

  take(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}

export interface StormOptions extends DriveOptions {
  /** How a bad answer is told in the failure message. */
  readonly describe: (request: RawRequest, status: number, answer: string) => string;
}

export interface StormResult {
  readonly sent: number;
  /** Answers by status; 0 for a request that got no answer at all. */
  readonly histogram: Record<number, number>;
  readonly seconds: number;
}

/**
 * Sends `runs` generated requests to one endpoint (see `drive`) and throws at the first
 * answer outside 200–499, or a request that got none, or when the time limit runs out.
 */
export async function storm(
  client: RawHttpClient,
  name: string,
  cases: fc.Arbitrary<RawRequest>,
  options: StormOptions,
): Promise<StormResult> {
  const histogram: Record<number, number> = {};
  let sent = 0;
  const { seconds } = await drive(name, cases, options, async (request) => {
    let status: number;
    let answer: string;
    try {
      const response = await client.send(request);
      status = response.status;
      answer = response.body;
    } catch (error) {
      status = 0;
      answer = error instanceof Error ? error.message : String(error);
    }
    sent += 1;
    histogram[status] = (histogram[status] ?? 0) + 1;
    return status < 200 || status >= 500 ? [options.describe(request, status, answer)] : [];
  });
  return { sent, histogram, seconds };
}
