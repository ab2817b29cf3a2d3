import {
  blockPauseMs,
  bucketIdle,
  bucketWait,
  lapseAdmissions,
  newBucketState,
  startInBucket,
  type BucketState,
  type BucketTuning,
  type CallPriority,
  type RateBucket,
} from './rate-bucket';

export type { CallPriority, RateBucket } from './rate-bucket';

export interface PacerOptions {
  /** Every window is divided by this (tests and benches run the platform's limits faster). */
  windowDivisor?: number;
  /** Share of each bucket refreshes may not use, kept for urgent work. Default 0.2. */
  urgentReserve?: number;
  /**
   * Share of each limit the pacer spaces calls for; the rest absorbs the jitter between a
   * call leaving and the platform counting it. Default 0.85.
   */
  headroom?: number;
  /** Calls an idle bucket lets through back to back, as a share of its limit. Default 0.05. */
  burst?: number;
  now?: () => number;
}

/** How long an admitted refresh holds its place in a bucket before it is taken or forgotten. */
const ADMISSION_HOLD_MS = 2_000;
/** A refresh that could start this soon is handled at once, in its session's order. */
const REFRESH_ADMIT_MS = 250;

interface Waiter {
  readonly buckets: BucketState[];
  readonly keys: readonly string[];
  readonly priority: CallPriority;
  readonly since: number;
  readonly resolve: () => void;
}

/** A bucket calls wait on, for a gauge: how many, and for how long the oldest has. */
export interface BucketBacklog {
  readonly key: string;
  readonly waiting: number;
  readonly oldestWaitMs: number;
}

/**
 * Paces one replica's calls to a platform so that its rate limits hold before a 429 says so
 * (issue 12, P5). Each bucket spaces its calls evenly (the generic cell rate algorithm: a call
 * may start once the bucket's schedule has reached it, less a small burst), at a little under
 * the platform's limit, so that no window the platform counts over ever sees more than the
 * limit even when calls arrive a little late or early. A share of every bucket is kept for
 * urgent work: urgent calls wait their turn in memory, in order; a refresh is admitted only
 * while the bucket has room beyond that share and no call waits, and is otherwise parked
 * (owed-refreshes) and shown later, so a restart's thousands of refreshes flow at the rate
 * the platform allows instead of queuing in front of everything. A 429 still arrives now and
 * then (other clients of the same workspace): it stops its buckets for the Retry-After.
 * One bucket's arithmetic is rate-bucket.ts's; this holds the line of waiting calls and
 * the timer that starts them.
 */
export class RateLimitPacer {
  private readonly buckets = new Map<string, BucketState>();
  private readonly waiters: Waiter[] = [];
  private timer?: NodeJS.Timeout;
  private timerAt = 0;
  private readonly tuning: BucketTuning;
  private readonly now: () => number;

  constructor(options: PacerOptions = {}) {
    this.tuning = {
      divisor: Math.max(1, options.windowDivisor ?? 1),
      reserve: Math.min(0.9, Math.max(0, options.urgentReserve ?? 0.2)),
      headroom: options.headroom ?? 0.85,
      burst: options.burst ?? 0.05,
    };
    this.now = options.now ?? Date.now;
  }

  /**
   * For a refresh about to be handled: true when it could start within `withinMs` (default
   * REFRESH_ADMIT_MS) behind every call already waiting or admitted, using only its share of
   * the bucket; its place is then held for a while, so the refreshes admitted together never
   * add up to more than that. False: the platform has no room for it soon, and it waits
   * elsewhere (owed-refreshes) instead of holding a handler.
   */
  admitRefresh(specs: readonly RateBucket[], withinMs = REFRESH_ADMIT_MS): boolean {
    const now = this.now();
    const states = specs.map((spec) => this.state(spec, now));
    const room = states.every((b) => {
      const startsAt =
        Math.max(now, b.dueAt, b.refreshDueAt, b.blockedUntil) +
        b.waiting * b.intervalMs +
        b.admitted.length * b.refreshIntervalMs;
      return startsAt <= now + Math.max(b.refreshIntervalMs, withinMs);
    });
    if (room) for (const b of states) b.admitted.push(now + ADMISSION_HOLD_MS);
    return room;
  }

  /**
   * Waits until a call may start in every bucket, and counts it. Per bucket, urgent calls go
   * first and in order; a call waiting on one bucket never holds up calls on others.
   */
  take(specs: readonly RateBucket[], priority: CallPriority): Promise<void> {
    return this.tryTake(specs, priority) ? Promise.resolve() : this.enqueue(specs, priority);
  }

  /**
   * Starts the call now if every bucket has room and nothing waits ahead of it; false: it must
   * wait, with {@link enqueue} (a caller that can set its work aside meanwhile does so first).
   */
  tryTake(specs: readonly RateBucket[], priority: CallPriority): boolean {
    if (specs.length === 0) return true;
    const now = this.now();
    const states = specs.map((spec) => this.state(spec, now));
    if (priority === 'refresh') {
      for (const b of states) b.admitted.shift();
    }
    const queued = states.some((b) =>
      priority === 'urgent' ? b.urgentWaiting > 0 : b.waiting > 0,
    );
    if (!queued && this.mayStart(states, priority, now)) {
      this.start(states, priority, now);
      return true;
    }
    return false;
  }

  /** Waits in line for every bucket, after {@link tryTake} said the call may not start now. */
  enqueue(specs: readonly RateBucket[], priority: CallPriority): Promise<void> {
    if (specs.length === 0) return Promise.resolve();
    const now = this.now();
    const states = specs.map((spec) => this.state(spec, now));
    return new Promise((resolve) => {
      const waiter: Waiter = {
        buckets: states,
        keys: specs.map((spec) => spec.key),
        priority,
        since: now,
        resolve,
      };
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
      this.schedule(waiter);
    });
  }

  /** A 429: nothing starts in these buckets until `retryAfterMs` has passed. */
  blocked(specs: readonly RateBucket[], retryAfterMs: number): void {
    const now = this.now();
    const pauseMs = blockPauseMs(retryAfterMs);
    for (const spec of specs) {
      const b = this.state(spec, now);
      b.blockedUntil = Math.max(b.blockedUntil, now + pauseMs);
    }
    this.schedule();
  }

  /** The buckets calls wait on, most waiting first (at most `limit`). */
  backlog(limit = 10): BucketBacklog[] {
    const now = this.now();
    const byKey = new Map<string, { waiting: number; since: number }>();
    for (const waiter of this.waiters) {
      for (const key of waiter.keys) {
        const seen = byKey.get(key);
        if (seen === undefined) byKey.set(key, { waiting: 1, since: waiter.since });
        else {
          seen.waiting += 1;
          seen.since = Math.min(seen.since, waiter.since);
        }
      }
    }
    return [...byKey]
      .map(([key, { waiting, since }]) => ({ key, waiting, oldestWaitMs: now - since }))
      .sort((a, b) => b.waiting - a.waiting || b.oldestWaitMs - a.oldestWaitMs)
      .slice(0, limit);
  }

  private mayStart(states: BucketState[], priority: CallPriority, now: number): boolean {
    return states.every((b) => bucketWait(b, priority, now) === 0);
  }

  private start(states: BucketState[], priority: CallPriority, now: number): void {
    for (const b of states) startInBucket(b, priority, now);
  }

  /** Starts every waiter that may start now; one that may not holds back its full buckets only. */
  private release(): void {
    this.timer = undefined;
    const now = this.now();
    const held = new Set<BucketState>();
    for (let i = 0; i < this.waiters.length;) {
      const waiter = this.waiters[i];
      const clear =
        waiter.buckets.every((b) => !held.has(b)) &&
        this.mayStart(waiter.buckets, waiter.priority, now);
      if (!clear) {
        // It holds back only the buckets it is waiting on: a call waiting for its own
        // channel's route must not hold the global bucket every other channel shares.
        for (const b of waiter.buckets) {
          if (bucketWait(b, waiter.priority, now) > 0) held.add(b);
        }
        i += 1;
        continue;
      }
      this.waiters.splice(i, 1);
      for (const b of waiter.buckets) {
        b.waiting -= 1;
        if (waiter.priority === 'urgent') b.urgentWaiting -= 1;
      }
      this.start(waiter.buckets, waiter.priority, now);
      waiter.resolve();
    }
    this.schedule();
  }

  /**
   * Wakes at the soonest time a waiter may start. A newcomer that may start before the timer
   * set for the others (another channel, behind one waiting on its own route) brings it
   * forward.
   */
  private schedule(newcomer?: Waiter): void {
    if (this.waiters.length === 0) return;
    const now = this.now();
    if (this.timer !== undefined) {
      if (newcomer === undefined || now + this.ownWait(newcomer, now) >= this.timerAt) return;
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    let soonest = Infinity;
    for (const waiter of this.waiters) soonest = Math.min(soonest, this.ownWait(waiter, now));
    const delay = Math.max(1, Math.ceil(soonest));
    this.timerAt = now + delay;
    this.timer = setTimeout(() => this.release(), delay);
    this.timer.unref();
  }

  private ownWait(waiter: Waiter, now: number): number {
    return Math.max(...waiter.buckets.map((b) => bucketWait(b, waiter.priority, now)));
  }

  private state(spec: RateBucket, now: number): BucketState {
    let b = this.buckets.get(spec.key);
    if (b === undefined) {
      // Idle buckets are forgotten (one per channel adds up); a full map is swept first.
      if (this.buckets.size >= 10_000) this.sweep(now);
      b = newBucketState(spec, this.tuning);
      this.buckets.set(spec.key, b);
    }
    lapseAdmissions(b, now);
    return b;
  }

  private sweep(now: number): void {
    for (const [key, b] of this.buckets) {
      if (bucketIdle(b, now)) this.buckets.delete(key);
    }
  }
}
