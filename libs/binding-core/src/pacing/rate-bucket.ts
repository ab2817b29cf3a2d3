/**
 * Why this file exists: one bucket's schedule — when its next call may start, what starting
 * one costs, how long a 429 stops it — is arithmetic on the bucket alone (the generic cell
 * rate algorithm), kept apart from the pacer's queue of waiting calls and its timer.
 */

/**
 * One of a platform's rate-limit buckets: at most `limit` calls in any `windowMs`. Calls that
 * share a key share the bucket (Slack: method + workspace; Discord: route + the global limit;
 * Mattermost: the server).
 */
export interface RateBucket {
  readonly key: string;
  readonly limit: number;
  readonly windowMs: number;
  /**
   * Paced, but never stopped by a 429 on a call that uses it: such a 429 names the call's
   * own bucket (Discord's global limit, shared by every route; a route's 429 must not stop
   * every other channel for its Retry-After).
   */
  readonly notBlockedBy429?: boolean;
}

/** Urgent: new prompts, resolutions, notices, texts. Refresh: "still valid" after a restart. */
export type CallPriority = 'urgent' | 'refresh';

/** The pacer's tuning every bucket is laid out by (see PacerOptions). */
export interface BucketTuning {
  readonly divisor: number;
  readonly reserve: number;
  readonly headroom: number;
  readonly burst: number;
}

/**
 * A Retry-After is the platform's word, but a header that does not parse (NaN) or says "for
 * ever" must not stop a bucket for good: it is read as the default pause, and capped.
 */
const DEFAULT_BLOCK_MS = 1_000;
const MAX_BLOCK_MS = 15 * 60_000;
/**
 * The finest wait a timer makes. A window shorter than this (only a large
 * TOLLGATE_RATE_WINDOW_DIVISOR makes one, in benches) cannot be paced call by call: spaced at
 * its interval, each timer tick released only the burst (Slack's one chat.update bucket: two
 * calls a tick, 14–23 edits/s on a loaded machine), so the bench measured its timers, not
 * the binding. Such a bucket may run a tick ahead of its schedule.
 */
const TIMER_TICK_MS = 1;

export interface BucketState {
  /** Spacing between calls. */
  readonly intervalMs: number;
  /** Spacing between refreshes: they may use only part of the bucket. */
  readonly refreshIntervalMs: number;
  /** How far ahead of its schedule a bucket may run: the burst an idle bucket allows. */
  readonly burstMs: number;
  /** When the next call is due if calls ran exactly at the limit (GCRA's TAT). */
  dueAt: number;
  /** The same for refreshes alone. */
  refreshDueAt: number;
  /** Until when the platform said to stop (a 429's Retry-After). */
  blockedUntil: number;
  /** Refreshes admitted and not yet started, by when they stop counting. */
  readonly admitted: number[];
  /** Calls waiting on this bucket, and how many of them are urgent. */
  waiting: number;
  urgentWaiting: number;
  /** After this, the bucket holds nothing worth keeping. */
  idleAfter: number;
}

/** A fresh bucket: calls spaced at a little under the limit, refreshes wider still. */
export function newBucketState(spec: RateBucket, tuning: BucketTuning): BucketState {
  const windowMs = spec.windowMs / tuning.divisor;
  const paced = Math.max(1, spec.limit * tuning.headroom);
  const intervalMs = windowMs / paced;
  const burstMs = intervalMs * Math.max(0, Math.floor(spec.limit * tuning.burst) - 1);
  return {
    intervalMs,
    refreshIntervalMs: intervalMs / (1 - tuning.reserve),
    burstMs: windowMs < TIMER_TICK_MS ? Math.max(burstMs, TIMER_TICK_MS) : burstMs,
    dueAt: 0,
    refreshDueAt: 0,
    blockedUntil: 0,
    admitted: [],
    waiting: 0,
    urgentWaiting: 0,
    idleAfter: 0,
  };
}

/** How long until a call of `priority` may start in `b`; 0 when it may now. */
export function bucketWait(b: BucketState, priority: CallPriority, now: number): number {
  const scheduled = priority === 'urgent' ? b.dueAt - b.burstMs : Math.max(b.dueAt, b.refreshDueAt);
  return Math.max(0, b.blockedUntil - now, scheduled - now);
}

/** Counts a call starting now: the bucket's schedule moves one interval on. */
export function startInBucket(b: BucketState, priority: CallPriority, now: number): void {
  b.dueAt = Math.max(b.dueAt, now) + b.intervalMs;
  if (priority === 'refresh') {
    b.refreshDueAt = Math.max(b.refreshDueAt, now) + b.refreshIntervalMs;
  }
  b.idleAfter = Math.max(b.dueAt, b.refreshDueAt, b.blockedUntil);
}

/** Forgets the admitted refreshes whose hold has run out. */
export function lapseAdmissions(b: BucketState, now: number): void {
  let lapsed = 0;
  while (lapsed < b.admitted.length && b.admitted[lapsed] <= now) lapsed += 1;
  if (lapsed > 0) b.admitted.splice(0, lapsed);
}

/** Whether the bucket holds nothing worth keeping: no schedule ahead, no call, no admission. */
export function bucketIdle(b: BucketState, now: number): boolean {
  return b.idleAfter <= now && b.waiting === 0 && b.admitted.every((until) => until <= now);
}

/** How long a 429 with this Retry-After stops a bucket: finite, and never negative. */
export function blockPauseMs(retryAfterMs: number): number {
  return Number.isNaN(retryAfterMs)
    ? DEFAULT_BLOCK_MS
    : Math.min(MAX_BLOCK_MS, Math.max(0, retryAfterMs));
}
