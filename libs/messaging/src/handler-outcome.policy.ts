import { failureReason, PermanentFailure, TransientFailure } from './failures';
import { retryDelayMs, type RetryDelayPolicy } from './retry-delay';

/**
 * Why this file exists: how a handled message is settled is a decision on the handler's
 * result and the delivery alone, kept pure so every branch is tested without NATS; the
 * runner only carries it out (docs/scenarios.md D3).
 */

/** What the handler did with a message; `failure` is what it threw or rejected with. */
export type HandlerResult =
  { readonly failed: false } | { readonly failed: true; readonly failure: unknown };

/** How the runner settles the message. */
export type SettleAction =
  | { readonly kind: 'ack' }
  /** Copied to the DLQ with `reason`, then terminated. */
  | { readonly kind: 'dead_letter'; readonly reason: string }
  /**
   * Handed back for `delayMs`. `expected` when the handler said it was transient: its
   * error is then not logged, as it is no surprise.
   */
  | {
      readonly kind: 'nak';
      readonly reason: string;
      readonly delayMs: number;
      readonly expected: boolean;
    };

export interface Delivery {
  readonly deliveryCount: number;
  /** The consumer's max_deliver; 0 or less means unlimited. */
  readonly maxDeliver: number;
}

/**
 * Returned → ack; PermanentFailure, or any failure on the last allowed delivery → dead
 * letter (an exhausted max_deliver would leave the message in the stream unseen); any other
 * failure → nak, with a delay that grows per delivery and honours a TransientFailure's
 * retry-after.
 */
export function settleActionFor(
  result: HandlerResult,
  delivery: Delivery,
  retryPolicy: RetryDelayPolicy,
  random: () => number = Math.random,
): SettleAction {
  if (!result.failed) return { kind: 'ack' };
  const { failure } = result;
  const reason = failureReason(failure);
  if (failure instanceof PermanentFailure) return { kind: 'dead_letter', reason };
  if (delivery.maxDeliver > 0 && delivery.deliveryCount >= delivery.maxDeliver) {
    return { kind: 'dead_letter', reason: `max_deliver_exhausted: ${reason}` };
  }
  const transient = failure instanceof TransientFailure;
  const retryAfterMs = transient ? failure.retryAfterMs : undefined;
  return {
    kind: 'nak',
    reason,
    delayMs: retryDelayMs(delivery.deliveryCount, retryPolicy, retryAfterMs, random),
    expected: transient,
  };
}
