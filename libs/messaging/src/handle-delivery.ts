import type { Logger } from 'pino';
import type { MessageHandler } from './consumer-runner.options';
import { toDeliveredMessage } from './delivered-message';
import { handleWithin, HandlerTimedOut } from './handler-deadline';
import { settleActionFor } from './handler-outcome.policy';
import { describeMessage, type MessageSettler, type Settleable } from './message-settler';
import type { RetryDelayPolicy } from './retry-delay';
import { traceConsume } from './trace-consume';

/**
 * Why this file exists: one delivery's turn in a handler slot — the handler run under its
 * deadline inside its consume span, then the message settled from what it did — reads on
 * its own, apart from how the runner admits, queues, parks and drains messages.
 */

export interface DeliveryHandling {
  readonly handler: MessageHandler;
  /** The durable's name, for the consume span. */
  readonly durable: string;
  readonly handlerTimeoutMs: number;
  readonly retryPolicy: RetryDelayPolicy;
  /** The consumer's max_deliver, known once the runner has started. */
  readonly maxDeliver: () => number;
  readonly settler: MessageSettler;
  readonly logger: Logger;
  readonly onAbandoned?: ((subject: string) => void) | undefined;
}

/** A held message: its keep-alive stops once its handler is done. */
export interface HeldDelivery extends Settleable {
  keepAlive?: NodeJS.Timeout;
}

/**
 * Runs the handler on `entry` and settles it: ack, nak with a delay, or dead-letter, as
 * settleActionFor decides. `park` is the handler's DeliveredMessage.park. Settles nothing
 * when the runner has settled the message already (a drain gave up on it).
 */
export async function handleDelivery(
  deps: DeliveryHandling,
  entry: HeldDelivery,
  park: <T>(waiting: Promise<T>) => Promise<T>,
): Promise<void> {
  const { msg } = entry;
  const { settler, logger } = deps;
  const result = await handleWithin(deps.handlerTimeoutMs, () => {
    const delivered = toDeliveredMessage(msg, () => settler.touch(entry), park);
    return traceConsume(delivered, deps.durable, deps.handler);
  });
  clearInterval(entry.keepAlive);
  if (result.failed && result.failure instanceof HandlerTimedOut && !entry.settling) {
    logger.error(
      { ...describeMessage(msg), timeoutMs: deps.handlerTimeoutMs },
      'handler exceeded its deadline; abandoned',
    );
    try {
      deps.onAbandoned?.(msg.subject);
    } catch (error) {
      logger.warn({ err: error }, 'abandoned hook threw');
    }
  }
  // Drain gave up on this message and naked it already.
  if (entry.settling) return;
  const action = settleActionFor(
    result,
    { deliveryCount: msg.info.deliveryCount, maxDeliver: deps.maxDeliver() },
    deps.retryPolicy,
  );
  switch (action.kind) {
    case 'ack':
      return settler.ack(entry);
    case 'dead_letter':
      return settler.deadLetter(entry, action.reason);
    case 'nak':
      logger.warn(
        {
          ...describeMessage(msg),
          reason: action.reason,
          delayMs: action.delayMs,
          ...(action.expected || !result.failed ? {} : { err: result.failure }),
        },
        'handler failed; nak with delay',
      );
      settler.nak(entry, action.delayMs);
  }
}
