/**
 * One of a platform's rate-limit buckets: at most `limit` calls in any `windowMs`. Calls that
 * share a key share the bucket (Slack: method + workspace; Discord: route + the global limit;
 * Mattermost: the server).
 */
export interface RateBucket {
  readonly key: string;
  readonly limit: number;
  readonly windowMs: number;
}

/** Urgent: new prompts, resolutions, notices, texts. Refresh: "still valid" after a restart. */
export type CallPriority = 'urgent' | 'refresh';

export interface PacerOptions {
  /** Every window is divided by this (tests and benches run the platform's limits faster). */
  windowDivisor?: number;
  /** Share of each bucket refreshes may not use, kept for urgent work. Default 0.2. */
  urgentReserve?: number;
  /** Share of each limit the pacer uses, for the clocks and delays between it and the platform. */
  headroom?: number;
  now?: () => number;
}

/** How long an admitted refresh holds its place in a bucket before it is taken or forgotten. */
const ADMISSION_HOLD_MS = 2_000;

interface BucketState {
  readonly limit: number;
  readonly windowMs: number;
  /** Refreshes may start only while fewer than this many calls are in the window. */
  readonly refreshLimit: number;
  /** Start times of the calls in the current window, oldest first. */
  readonly starts: number[];
  /** Until when the platform said to stop (a 429's Retry-After). */
  blockedUntil: number;
  /** Refreshes admitted by triage and not yet started, by when they stop counting. */
  readonly admitted: number[];
  /** The last slot handed to a deferred refresh: the next one goes after it. */
  refreshHorizon: number;
  /** Calls waiting on this bucket, and how many of them are urgent. */
  waiting: number;
  urgentWaiting: number;
}

interface Waiter {
  readonly buckets: BucketState[];
  readonly priority: CallPriority;
  readonly resolve: () => void;
}

/**
 * Paces one replica's calls to a platform so that its rate limits are respected before a 429
 * says so: a sliding-window log per bucket (exact, and what the platforms describe), with a
 * share of every bucket kept for urgent work. Urgent calls wait their turn in memory, in
 * order; a refresh is admitted only while the bucket has room beyond that share and no
 * urgent call waits, and otherwise deferred to a slot of its own, so a restart's thousands of
 * refreshes flow at the rate the platform allows instead of queuing in front of everything
 * (issue 12, P5). A 429 still arrives now and then (clocks, other clients of the same
 * workspace): it blocks its buckets for the Retry-After.
 */
export class RateLimitPacer {
  private readonly buckets = new Map<string, BucketState>();
  private readonly waiters: Waiter[] = [];
  private timer?: NodeJS.Timeout;
  private readonly divisor: number;
  private readonly reserve: number;
  private readonly headroom: number;
  private readonly now: () => number;

  constructor(options: PacerOptions = {}) {
    this.divisor = Math.max(1, options.windowDivisor ?? 1);
    this.reserve = options.urgentReserve ?? 0.2;
    this.headroom = options.headroom ?? 0.9;
    this.now = options.now ?? Date.now;
  }

  /**
   * For a refresh about to be handled: undefined when it may go now (its place is held for a
   * while), else how long to set it aside. Deferred refreshes get consecutive slots at the
   * rate refreshes may use, so they come back spread out rather than all at once.
   */
  refreshDelayMs(specs: readonly RateBucket[]): number | undefined {
    const now = this.now();
    const states = specs.map((spec) => this.state(spec, now));
    const free = states.every(
      (b) =>
        b.blockedUntil <= now &&
        b.waiting === 0 &&
        b.starts.length + b.admitted.length < b.refreshLimit,
    );
    if (free) {
      for (const b of states) b.admitted.push(now + ADMISSION_HOLD_MS);
      return undefined;
    }
    let delay = 0;
    for (const b of states) {
      const interval = b.windowMs / Math.max(1, b.refreshLimit);
      const earliest = Math.max(now + this.untilRoom(b, now, b.refreshLimit), b.blockedUntil);
      b.refreshHorizon = Math.max(earliest, b.refreshHorizon + interval);
      delay = Math.max(delay, b.refreshHorizon - now);
    }
    return Math.ceil(delay);
  }

  /**
   * Waits until a call may start in every bucket, and counts it. Per bucket, urgent calls go
   * first and in order; a call waiting on one bucket never holds up calls on others.
   */
  take(specs: readonly RateBucket[], priority: CallPriority): Promise<void> {
    if (specs.length === 0) return Promise.resolve();
    const now = this.now();
    const states = specs.map((spec) => this.state(spec, now));
    if (priority === 'refresh') {
      for (const b of states) b.admitted.shift();
    }
    const queued = states.some((b) =>
      priority === 'urgent' ? b.urgentWaiting > 0 : b.waiting > 0,
    );
    if (!queued && this.mayStart(states, priority, now)) {
      this.start(states, now);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const waiter: Waiter = { buckets: states, priority, resolve };
      for (const b of states) {
        b.waiting += 1;
        if (priority === 'urgent') b.urgentWaiting += 1;
      }
      if (priority === 'urgent') {
        const firstRefresh = this.waiters.findIndex((w) => w.priority === 'refresh');
        if (firstRefresh < 0) this.waiters.push(waiter);
        else this.waiters.splice(firstRefresh, 0, waiter);
      } else {
        this.waiters.push(waiter);
      }
      this.schedule();
    });
  }

  /** A 429: nothing starts in these buckets until `retryAfterMs` has passed. */
  blocked(specs: readonly RateBucket[], retryAfterMs: number): void {
    const now = this.now();
    for (const spec of specs) {
      const b = this.state(spec, now);
      b.blockedUntil = Math.max(b.blockedUntil, now + retryAfterMs);
    }
    this.schedule();
  }

  private capOf(b: BucketState, priority: CallPriority): number {
    return priority === 'urgent' ? b.limit : b.refreshLimit;
  }

  private mayStart(states: BucketState[], priority: CallPriority, now: number): boolean {
    return states.every(
      (b) => b.blockedUntil <= now && b.starts.length < this.capOf(b, priority),
    );
  }

  private start(states: BucketState[], now: number): void {
    for (const b of states) b.starts.push(now);
  }

  /** Starts every waiter that may start now; one that may not holds back its buckets only. */
  private release(): void {
    this.timer = undefined;
    const now = this.now();
    const held = new Set<BucketState>();
    for (let i = 0; i < this.waiters.length; ) {
      const waiter = this.waiters[i]!;
      for (const b of waiter.buckets) this.prune(b, now);
      const clear =
        waiter.buckets.every((b) => !held.has(b)) &&
        this.mayStart(waiter.buckets, waiter.priority, now);
      if (!clear) {
        for (const b of waiter.buckets) held.add(b);
        i += 1;
        continue;
      }
      this.waiters.splice(i, 1);
      for (const b of waiter.buckets) {
        b.waiting -= 1;
        if (waiter.priority === 'urgent') b.urgentWaiting -= 1;
      }
      this.start(waiter.buckets, now);
      waiter.resolve();
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.waiters.length === 0) return;
    const now = this.now();
    let wait = Infinity;
    for (const waiter of this.waiters) {
      const cap = (b: BucketState) => this.capOf(b, waiter.priority);
      wait = Math.min(
        wait,
        Math.max(
          ...waiter.buckets.map((b) =>
            Math.max(b.blockedUntil - now, this.untilRoom(b, now, cap(b))),
          ),
        ),
      );
    }
    this.timer = setTimeout(() => this.release(), Math.max(1, Math.ceil(wait)));
    this.timer.unref();
  }

  /** Until fewer than `cap` calls are in the window; 0 when they already are. */
  private untilRoom(b: BucketState, now: number, cap = b.limit): number {
    this.prune(b, now);
    if (b.starts.length < cap) return 0;
    return b.starts[b.starts.length - cap]! + b.windowMs - now;
  }

  private prune(b: BucketState, now: number): void {
    let old = 0;
    while (old < b.starts.length && b.starts[old]! <= now - b.windowMs) old += 1;
    if (old > 0) b.starts.splice(0, old);
    let lapsed = 0;
    while (lapsed < b.admitted.length && b.admitted[lapsed]! <= now) lapsed += 1;
    if (lapsed > 0) b.admitted.splice(0, lapsed);
  }

  private state(spec: RateBucket, now: number): BucketState {
    let b = this.buckets.get(spec.key);
    if (b === undefined) {
      // Idle buckets are forgotten (one per channel adds up); a full map is swept first.
      if (this.buckets.size >= 10_000) this.sweep(now);
      const limit = Math.max(1, Math.floor(spec.limit * this.headroom));
      b = {
        limit,
        windowMs: spec.windowMs / this.divisor,
        refreshLimit: Math.max(1, Math.floor(limit * (1 - this.reserve))),
        starts: [],
        blockedUntil: 0,
        admitted: [],
        refreshHorizon: 0,
        waiting: 0,
        urgentWaiting: 0,
      };
      this.buckets.set(spec.key, b);
    }
    this.prune(b, now);
    return b;
  }

  private sweep(now: number): void {
    for (const [key, b] of this.buckets) {
      this.prune(b, now);
      if (
        b.starts.length === 0 &&
        b.admitted.length === 0 &&
        b.waiting === 0 &&
        b.blockedUntil <= now &&
        b.refreshHorizon <= now
      ) {
        this.buckets.delete(key);
      }
    }
  }
}
