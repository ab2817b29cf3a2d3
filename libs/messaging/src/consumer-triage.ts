import type { Logger } from 'pino';
import type { ConsumerRunnerOptions, TriageVerdict } from './consumer-runner.options';
import {
  describeMessage,
  keepAliveEveryMs,
  type MessageSettler,
  type Settleable,
} from './message-settler';
import { retryDelayMs, type RetryDelayPolicy } from './retry-delay';

/**
 * Why this file exists: triage (ConsumerRunnerOptions.triage) sets a message aside before it
 * takes a handler slot — deferred, or absorbed by other work that settles it later — and
 * those absorbed messages must be kept alive, settled once the work ends, and waited for by
 * drain. That bookkeeping is apart from the runner's own slots.
 */
export interface ConsumerTriageDeps {
  readonly triage: ConsumerRunnerOptions['triage'];
  readonly logger: Logger;
  readonly settler: MessageSettler;
  readonly retryPolicy: RetryDelayPolicy;
  readonly ackWaitMs: () => number;
  /** A message was settled for good. */
  readonly moved: () => void;
}

export class ConsumerTriage {
  /** Messages handed to other work, until it acks them; drain waits for them too. */
  private readonly absorbed = new Set<Promise<void>>();

  constructor(private readonly deps: ConsumerTriageDeps) {}

  /**
   * Whether triage set the message aside. Never on its last allowed delivery (`lastDelivery`):
   * that one goes to the handler, whose failure dead-letters it.
   */
  setAside(entry: Settleable, lastDelivery: boolean): boolean {
    const { triage, logger, settler } = this.deps;
    const { msg } = entry;
    if (triage === undefined) return false;
    if (lastDelivery) return false;
    let verdict: TriageVerdict | undefined;
    try {
      verdict = triage(msg.subject, msg.data);
    } catch (error) {
      logger.warn({ ...describeMessage(msg), err: error }, 'triage threw; handling the message');
      return false;
    }
    if (verdict === undefined) return false;
    if ('deferMs' in verdict) {
      settler.defer(entry, verdict.deferMs);
      return true;
    }
    entry.settling = true;
    // Kept alive while the other work runs, as a held message is.
    const keepAlive = setInterval(
      () => settler.send(msg, () => msg.working()),
      keepAliveEveryMs(this.deps.ackWaitMs()),
    );
    const done: Promise<void> = verdict.absorbed
      .then(
        () => {
          settler.send(msg, () => msg.ack());
          this.deps.moved();
          settler.count('acked', msg);
        },
        (error: unknown) => {
          logger.warn({ ...describeMessage(msg), err: error }, 'absorbed work failed; nak');
          const delayMs = retryDelayMs(msg.info.deliveryCount, this.deps.retryPolicy);
          settler.send(msg, () => msg.nak(delayMs));
          settler.count('naked', msg);
        },
      )
      .finally(() => {
        clearInterval(keepAlive);
        this.absorbed.delete(done);
      });
    this.absorbed.add(done);
    return true;
  }

  /** Absorbed messages not yet settled; each resolves once it is, and never rejects. */
  unsettled(): Promise<void>[] {
    return [...this.absorbed];
  }
}
