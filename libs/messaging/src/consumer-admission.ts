import type { KeyFairness } from './consumer-runner.options';

/** A held message as admission sees it: its key, if fairness gives it one. */
export interface Keyed {
  readonly key?: string;
}

/** What admission decided for a message as it arrived. */
export type Admission =
  /** Held: queued until a slot is free and its key may run. */
  | { readonly kind: 'hold' }
  /** Its key holds all it may: hand it back (nak) for `deferMs`, to be taken up later. */
  | { readonly kind: 'defer'; readonly deferMs: number }
  /** Its key has too many handed back already: dead-letter it with this reason. */
  | { readonly kind: 'backlog_limit'; readonly reason: string };

/**
 * Which held message may run, per key (ConsumerRunnerOptions.fairness): at most
 * maxHeldPerKey of one key held, maxRunningPerKey of them running, and at most
 * maxDeferredPerKey handed back and still waiting on the server, so one key's backlog never
 * holds every slot (docs/protocol.md §2). Without fairness every message is held and runs as
 * soon as a slot is free. Keeps counts only; the runner settles the messages.
 */
export class ConsumerAdmission<E extends Keyed> {
  private readonly queued: E[] = [];
  private readonly runningByKey = new Map<string, number>();
  private readonly heldByKey = new Map<string, number>();
  /** Per key: stream sequences handed back as deferred, and until when they count as waiting. */
  private readonly deferredByKey = new Map<string, Map<number, number>>();

  constructor(
    private readonly fairness: KeyFairness | undefined,
    /** The consumer's ack_wait: a deferred message counts as waiting for its delay and that. */
    private readonly ackWaitMs: () => number,
  ) {}

  keyOf(subject: string): string | undefined {
    return this.fairness?.keyOf(subject);
  }

  /** As a message of `key` arrives (its stream sequence `seq`): hold it, defer it, or refuse it. */
  admit(key: string | undefined, seq: number, now = Date.now()): Admission {
    const { fairness } = this;
    if (fairness === undefined || key === undefined) return { kind: 'hold' };
    const waiting = this.deferredByKey.get(key);
    // A deferred message back from the server no longer waits there.
    waiting?.delete(seq);
    if ((this.heldByKey.get(key) ?? 0) < fairness.maxHeldPerKey) {
      bump(this.heldByKey, key, 1);
      return { kind: 'hold' };
    }
    const deferred = waiting ?? new Map<number, number>();
    for (const [s, until] of deferred) if (until < now) deferred.delete(s);
    if (deferred.size >= fairness.maxDeferredPerKey) {
      return {
        kind: 'backlog_limit',
        reason: `backlog_limit: more than ${fairness.maxDeferredPerKey} messages of ${key} waiting`,
      };
    }
    deferred.set(seq, now + fairness.deferMs + this.ackWaitMs());
    this.deferredByKey.set(key, deferred);
    return { kind: 'defer', deferMs: fairness.deferMs };
  }

  /** A held message waits for a slot. */
  enqueue(entry: E): void {
    this.queued.push(entry);
  }

  /**
   * Takes the queued messages that may start with `freeSlots` slots, oldest first, skipping
   * keys already at their running limit, and counts them as running.
   */
  takeRunnable(freeSlots: number): E[] {
    const perKey = this.fairness?.maxRunningPerKey ?? Infinity;
    const runnable: E[] = [];
    for (let i = 0; i < this.queued.length && runnable.length < freeSlots;) {
      const entry = this.queued[i];
      if (entry.key !== undefined && (this.runningByKey.get(entry.key) ?? 0) >= perKey) {
        i += 1;
        continue;
      }
      this.queued.splice(i, 1);
      if (entry.key !== undefined) bump(this.runningByKey, entry.key, 1);
      runnable.push(entry);
    }
    return runnable;
  }

  /** A message that ran is settled: its key holds and runs one fewer. */
  finished(entry: E): void {
    if (entry.key === undefined) return;
    bump(this.runningByKey, entry.key, -1);
    bump(this.heldByKey, entry.key, -1);
  }

  /** Every queued message, which never started (a drain hands them back). */
  takeQueued(): E[] {
    const queued = this.queued.splice(0);
    for (const entry of queued) if (entry.key !== undefined) bump(this.heldByKey, entry.key, -1);
    return queued;
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
