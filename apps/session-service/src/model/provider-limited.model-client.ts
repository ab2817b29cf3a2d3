import type { ModelClient, ModelReply, ModelRequest } from './model-client.port';
import { ModelUnavailable } from './model-unavailable.error';

export interface ProviderLimits {
  /** MODEL_MAX_CONCURRENCY: calls to the provider at once. */
  readonly maxConcurrency: number;
  /** First retry delay when the provider is unavailable; doubles per attempt. */
  readonly retryBaseMs: number;
  /** Ceiling of one delay (a Retry-After may exceed it). */
  readonly retryMaxMs: number;
  /** After this long without an answer the call fails, and with it the turn. */
  readonly giveUpMs: number;
  readonly onInFlight?: (calls: number) => void;
}

/**
 * Whatever the number of turns in flight, at most `maxConcurrency` calls reach the provider
 * at once; the others wait their turn in order. A call the provider cannot take now (429,
 * outage) waits — honouring Retry-After, else a growing delay — without holding a slot, and
 * is tried again until `giveUpMs` has passed. Nothing else is held while a call waits: the
 * turn committed what it decided before asking (S14).
 */
export class ProviderLimitedModelClient implements ModelClient {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly inner: ModelClient,
    private readonly limits: ProviderLimits,
  ) {}

  async complete(request: ModelRequest): Promise<ModelReply> {
    const started = Date.now();
    for (let attempt = 0; ; attempt += 1) {
      await this.acquire();
      let delayMs: number;
      try {
        return await this.inner.complete(request);
      } catch (error) {
        if (!(error instanceof ModelUnavailable)) throw error;
        const backoff = Math.min(
          this.limits.retryMaxMs,
          this.limits.retryBaseMs * 2 ** Math.min(attempt, 20),
        );
        delayMs = Math.max(error.retryAfterMs ?? 0, backoff);
        if (Date.now() - started + delayMs > this.limits.giveUpMs) throw error;
      } finally {
        this.release();
      }
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }

  private acquire(): Promise<void> {
    if (this.inFlight < this.limits.maxConcurrency) {
      this.took();
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.waiting.push(() => {
        this.took();
        resolve();
      }),
    );
  }

  private took(): void {
    this.inFlight += 1;
    this.limits.onInFlight?.(this.inFlight);
  }

  private release(): void {
    this.inFlight -= 1;
    this.limits.onInFlight?.(this.inFlight);
    this.waiting.shift()?.();
  }
}
