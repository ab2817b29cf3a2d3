import { TransientFailure } from '@tollgate/messaging';
import type { TextOutput, ToolInteractionRejected } from '@tollgate/protocol';
import type { CallPriority, RateLimitPacer } from '../pacing/rate-limit-pacer';
import type { PacedCall, PlatformAdapter } from '../platform-adapter.port';

/**
 * Sets a wait aside without a consumer slot (DeliveredMessage.park): a message waiting on its
 * rate-limit bucket or on its session's earlier output holds nothing other work could use.
 */
export type Park = <T>(waiting: Promise<T>) => Promise<T>;

export const inPlace: Park = (waiting) => waiting;

/**
 * The paced side of every platform call an output makes: room in the call's rate-limit
 * buckets before it starts, and a 429 turned into a pause of those buckets after it.
 */
export class PacedPlatformCall {
  constructor(
    private readonly deps: {
      readonly adapter: PlatformAdapter;
      /** None: calls are not paced. */
      readonly pacer?: RateLimitPacer;
    },
  ) {}

  /**
   * Waits for room in the call's rate-limit buckets, parked: a burst into one bucket (150
   * mentions in one channel) must not hold the slots every other bucket's work needs.
   */
  async pace(call: PacedCall, priority: CallPriority, park: Park): Promise<void> {
    const { pacer, adapter } = this.deps;
    if (pacer === undefined || adapter.rateBuckets === undefined) return;
    const buckets = adapter.rateBuckets(call);
    if (pacer.tryTake(buckets, priority)) return;
    // A refresh was admitted only if it could start within moments (triage parks the rest in
    // owed_refreshes): it waits in its slot, which keeps a restart's refreshes from crowding
    // the database while new prompts need it.
    const waiting = pacer.enqueue(buckets, priority);
    await (priority === 'refresh' ? waiting : park(waiting));
  }

  /** A 429 is a signal: the call's buckets stop for its Retry-After. Returns the failure. */
  rateLimited<F extends Error>(call: PacedCall, failure: F): F {
    const { pacer, adapter } = this.deps;
    if (
      pacer !== undefined &&
      adapter.rateBuckets !== undefined &&
      failure instanceof TransientFailure &&
      failure.reason.includes('rate_limited')
    ) {
      pacer.blocked(
        adapter.rateBuckets(call).filter((bucket) => bucket.notBlockedBy429 !== true),
        failure.retryAfterMs ?? 1_000,
      );
    }
    return failure;
  }
}

/** The platform call that delivers a reply or a notice. */
export function deliveryCall(output: TextOutput | ToolInteractionRejected): PacedCall {
  return {
    effect: output.type === 'TextOutput' ? 'post_text' : 'send_notice',
    conversation: output.conversation,
  };
}
