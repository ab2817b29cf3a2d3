import fc from 'fast-check';
import { inParallel, type RawHttpClient, type RawRequest } from './raw-http.client';

export interface StormOptions {
  readonly runs: number;
  readonly seed: number;
  /** Requests per property run, sent `concurrency` at a time. */
  readonly batch: number;
  readonly concurrency: number;
  /** A bound per endpoint, so a server that slows to a crawl fails instead of hanging. */
  readonly timeLimitMs: number;
  /** How a bad answer is told in the failure message. */
  readonly describe: (request: RawRequest, status: number, answer: string) => string;
  /** More to say when it fails (e.g. the server's last output). */
  readonly context?: () => string;
}

export interface StormResult {
  readonly sent: number;
  /** Answers by status; 0 for a request that got no answer at all. */
  readonly histogram: Record<number, number>;
  /** Every answer below 200 or from 500 up, as `describe` tells it. */
  readonly failures: readonly string[];
  readonly seconds: number;
}

/**
 * Sends `runs` generated requests to one endpoint in seeded fast-check batches and throws
 * (through fast-check's reporter, with the seed) at the first batch with an answer outside
 * 200–499, or when the time limit runs out. The caller asserts on the result too.
 */
export async function storm(
  client: RawHttpClient,
  name: string,
  cases: fc.Arbitrary<RawRequest>,
  options: StormOptions,
): Promise<StormResult> {
  const failures: string[] = [];
  const histogram: Record<number, number> = {};
  let sent = 0;
  const started = Date.now();
  await fc.assert(
    fc.asyncProperty(
      fc.array(cases, { minLength: options.batch, maxLength: options.batch }),
      async (batch) => {
        const before = failures.length;
        await inParallel(batch, options.concurrency, async (request) => {
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
          if (status < 200 || status >= 500)
            failures.push(options.describe(request, status, answer));
        });
        return failures.length === before;
      },
    ),
    {
      seed: options.seed,
      numRuns: Math.ceil(options.runs / options.batch),
      endOnFailure: true,
      interruptAfterTimeLimit: options.timeLimitMs,
      markInterruptAsFailure: true,
      reporter: (details) => {
        if (!details.failed) return;
        throw new Error(
          `${name} ${details.interrupted ? 'interrupted' : 'failed'} (seed ${options.seed}); first bad answers:\n` +
            failures.slice(0, 8).join('\n') +
            (options.context ? `\n${options.context()}` : ''),
        );
      },
    },
  );
  return { sent, histogram, failures, seconds: (Date.now() - started) / 1000 };
}
