import type { JsMsg } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import type { ConsumerOutcome } from './consumer-runner.options';
import type { DeadLetterPublisher } from './dead-letter';
import { retryDelayMs, type RetryDelayPolicy } from './retry-delay';

/**
 * Why this file exists: settling a message — ack (confirmed), nak, dead-letter then term,
 * `working()` — must happen at most once per message, never throw out of a timer when NATS
 * is gone, and be counted and logged the same way wherever the runner decides it. The
 * runner decides; this carries the decision out.
 */

const ACK_CONFIRM_TIMEOUT_MS = 5_000;

/** A message being settled; `settling` is set once, so nothing settles it twice. */
export interface Settleable {
  readonly msg: JsMsg;
  settling: boolean;
}

export interface MessageSettlerDeps {
  readonly logger: Logger;
  readonly deadLetters: DeadLetterPublisher;
  readonly dlqSubject: string;
  readonly retryPolicy: RetryDelayPolicy;
  /** false: acks are sent without waiting for the server's confirmation. */
  readonly confirmAcks: boolean;
  readonly ackWaitMs: () => number;
  /** A message was settled for good. */
  readonly moved: () => void;
  readonly onOutcome?: ((outcome: ConsumerOutcome, subject: string) => void) | undefined;
}

/** How often a held message's ack_wait is renewed: well inside it. */
export function keepAliveEveryMs(ackWaitMs: number): number {
  return Math.max(100, Math.floor(ackWaitMs / 3));
}

export function describeMessage(msg: JsMsg): Record<string, unknown> {
  return {
    subject: msg.subject,
    streamSeq: msg.info.streamSequence,
    deliveryCount: msg.info.deliveryCount,
  };
}

export class MessageSettler {
  constructor(private readonly deps: MessageSettlerDeps) {}

  async ack(entry: Settleable): Promise<void> {
    entry.settling = true;
    if (!this.deps.confirmAcks) {
      this.send(entry.msg, () => entry.msg.ack());
      this.deps.moved();
      this.count('acked', entry.msg);
      return;
    }
    try {
      // ackAck waits for the server to confirm, so an ack lost in a disconnect is seen.
      await entry.msg.ackAck({ timeout: ACK_CONFIRM_TIMEOUT_MS });
    } catch (error) {
      this.deps.logger.warn(
        { ...describeMessage(entry.msg), err: error },
        'ack not confirmed; the message may be redelivered',
      );
    }
    this.deps.moved();
    this.count('acked', entry.msg);
  }

  async deadLetter(entry: Settleable, reason: string): Promise<void> {
    entry.settling = true;
    const { msg } = entry;
    // A fresh ack_wait covers the publish, which is bounded to half of it, so the message
    // is not redelivered elsewhere while its copy is still on the way.
    this.send(msg, () => msg.working());
    try {
      await this.deps.deadLetters.publish(
        msg,
        reason,
        Math.max(1_000, Math.floor(this.deps.ackWaitMs() / 2)),
      );
    } catch (error) {
      const delayMs = retryDelayMs(msg.info.deliveryCount, this.deps.retryPolicy);
      this.deps.logger.error(
        { ...describeMessage(msg), reason, err: error, delayMs },
        'dead-letter publish failed; nak so the message is not lost',
      );
      this.nak(entry, delayMs);
      return;
    }
    this.send(msg, () => msg.term());
    this.deps.moved();
    this.deps.logger.warn(
      { ...describeMessage(msg), reason, dlqSubject: this.deps.dlqSubject },
      'message dead-lettered',
    );
    this.count('dead_lettered', msg);
  }

  nak(entry: Settleable, delayMs: number): void {
    entry.settling = true;
    const { msg } = entry;
    this.send(msg, () => (delayMs > 0 ? msg.nak(delayMs) : msg.nak()));
    this.count('naked', msg);
  }

  /** Handed back for `deferMs` without counting as a failure. */
  defer(entry: Settleable, deferMs: number): void {
    entry.settling = true;
    this.send(entry.msg, () => entry.msg.nak(deferMs));
    this.count('deferred', entry.msg);
  }

  /** Renews the ack_wait of a message not yet being settled. */
  touch(entry: Settleable): void {
    if (entry.settling) return;
    this.send(entry.msg, () => entry.msg.working());
  }

  /** Acks go out on the connection; a closed one throws, which must not escape a timer. */
  send(msg: JsMsg, send: () => void): void {
    try {
      send();
    } catch (error) {
      this.deps.logger.warn(
        { ...describeMessage(msg), err: error },
        'could not reach nats to settle',
      );
    }
  }

  count(outcome: ConsumerOutcome, msg: JsMsg): void {
    try {
      this.deps.onOutcome?.(outcome, msg.subject);
    } catch (error) {
      this.deps.logger.warn({ err: error, outcome }, 'outcome hook threw');
    }
  }
}
