import type { DataSource } from 'typeorm';

/**
 * Bounds the pooled connections decisions hold at once. A turn may wait for a connection as
 * long as the turns before it need; in the pool's own queue that wait ends in "timeout
 * exceeded when trying to connect" (meant for a database that is away), so a restart that
 * resumes a thousand turns at once failed most of them and retried in a storm (D2). Here the
 * wait has no deadline, runs in arrival order, and leaves a share of the pool to the outbox
 * relay, the prompt timers, the readiness probe and the reads a decision makes while it holds
 * nothing.
 */
export class ConnectionGate {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`gate size ${size} is not >= 1`);
  }

  /** A quarter of the pool stays outside the gate (at least one connection when it can). */
  static forPool(dataSource: DataSource): ConnectionGate {
    const pool = (dataSource.options as { poolSize?: number }).poolSize ?? 10;
    return new ConnectionGate(Math.max(1, pool - Math.max(1, Math.floor(pool / 4))));
  }

  /** Resolves with the function that gives the slot back (call it exactly once). */
  async acquire(): Promise<() => void> {
    if (this.held < this.size) {
      this.held += 1;
    } else {
      // The slot is handed over by `release`, so `held` already counts this waiter.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.held -= 1;
    };
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }
}
