import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { millis } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { ConsumerAdmission } from './consumer-admission';
import {
  DEFAULT_HANDLER_TIMEOUT_MS,
  type ConsumerOutcome,
  type ConsumerProgress,
  type ConsumerRunnerOptions,
  type TriageVerdict,
} from './consumer-runner.options';
import { DeadLetterPublisher } from './dead-letter';
import { toDeliveredMessage } from './delivered-message';
import { failureReason, PermanentFailure, TransientFailure } from './failures';
import { retryDelayMs } from './retry-delay';
import { traceConsume } from './trace-consume';

export * from './consumer-runner.options';
export { fitToMaxPayload } from './dead-letter';

const ACK_CONFIRM_TIMEOUT_MS = 5_000;

type RunnerState = 'idle' | 'running' | 'draining' | 'stopped';

interface InFlight {
  readonly msg: JsMsg;
  readonly key?: string;
  /** Set once the runner starts settling it, so nothing settles a message twice. */
  settling: boolean;
  /** Waiting in DeliveredMessage.park: holds no slot and does not count as held. */
  parked: boolean;
  keepAlive?: NodeJS.Timeout;
  /** Resolves once the message is settled; never rejects. */
  done: Promise<void>;
}

/**
 * Pulls from one durable consumer and settles every message from what its handler did:
 * returned → ack; TransientFailure or any other error → nak with a growing delay;
 * PermanentFailure, or a transient failure on the last allowed delivery → copy to the DLQ,
 * then a plain `term()`. The runner dead-letters the last delivery itself because an
 * exhausted max_deliver leaves the message sitting in the stream with no notice anyone
 * would see, and nats-server 2.9 drops a reason given to `term`.
 */
export class ConsumerRunner {
  private state: RunnerState = 'idle';
  /** Every message held: running, or queued until its key may run. */
  private readonly inFlight = new Set<InFlight>();
  /** Messages triage handed to other work, until it acks them; drain waits for them too. */
  private readonly absorbed = new Set<Promise<void>>();
  private running = 0;
  private parked = 0;
  private readonly admission: ConsumerAdmission<InFlight>;
  private readonly deadLetters: DeadLetterPublisher;
  private readonly logger: Logger;
  private readonly maxInFlight: number;
  private readonly retryPolicy: { baseMs: number; maxMs: number };
  private readonly pullExpiresMs: number;
  private readonly restartDelayMs: number;
  private readonly handlerTimeoutMs: number;
  private readonly maxParked: number;
  private ackWaitMs = 30_000;
  private maxDeliver = -1;
  private loop?: Promise<void>;
  private drained?: Promise<void>;
  private batch?: ConsumerMessages;
  private wakeOnFreeSlot?: () => void;
  private wakeFromPause?: () => void;
  private readonly stallAfterMs: number;
  private readonly progressCheckMs: number;
  private progressTimer?: NodeJS.Timeout;
  private backlog = 0;
  private lastProgressAt = Date.now();

  constructor(private readonly options: ConsumerRunnerOptions) {
    this.admission = new ConsumerAdmission<InFlight>(options.fairness, () => this.ackWaitMs);
    this.deadLetters = new DeadLetterPublisher(options.js, {
      stream: options.stream,
      service: options.service,
      dlqSubject: options.dlqSubject,
      ...(options.maxPayloadBytes === undefined
        ? {}
        : { maxPayloadBytes: options.maxPayloadBytes }),
    });
    this.logger = options.logger.child({ stream: options.stream, durable: options.durable });
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 16);
    this.retryPolicy = {
      baseMs: options.retryBaseMs ?? 1_000,
      maxMs: options.retryMaxMs ?? 5 * 60_000,
    };
    this.pullExpiresMs = Math.max(1_000, options.pullExpiresMs ?? 10_000);
    this.restartDelayMs = options.restartDelayMs ?? 1_000;
    this.stallAfterMs = options.stallAfterMs ?? 120_000;
    this.progressCheckMs = options.progressCheckMs ?? 5_000;
    this.handlerTimeoutMs = Math.max(1, options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS);
    this.maxParked = Math.max(0, options.maxParked ?? 512);
  }

  /**
   * Looks the durable up (it must exist: provision first) and starts pulling. The running
   * consumer's own ack_wait and max_deliver are used, as provisioning never changes them.
   */
  async start(): Promise<void> {
    if (this.state !== 'idle') throw new Error(`consumer runner already ${this.state}`);
    const { js, stream, durable } = this.options;
    const consumer = await js.consumers.get(stream, durable);
    const { config } = await consumer.info(true);
    // Drained while the look-up was under way: stay stopped.
    if (this.state !== 'idle') return;
    this.ackWaitMs = config.ack_wait ? millis(config.ack_wait) : 30_000;
    this.maxDeliver = config.max_deliver ?? -1;
    this.state = 'running';
    this.lastProgressAt = Date.now();
    this.watchBacklog(consumer);
    this.loop = this.pullLoop(consumer);
    this.logger.info(
      { ackWaitMs: this.ackWaitMs, maxDeliver: this.maxDeliver, maxInFlight: this.maxInFlight },
      'consumer runner started',
    );
  }

  isRunning(): boolean {
    return this.state === 'running';
  }

  /**
   * A consumer whose messages are all retried (poison misread as transient, a dependency
   * refusing one kind of message) looks alive — it pulls, naks, pulls — while nothing moves;
   * this says so, for readiness and metrics.
   */
  progress(): ConsumerProgress {
    const msSinceProgress = Date.now() - this.lastProgressAt;
    return {
      backlog: this.backlog,
      msSinceProgress,
      stalled: this.state === 'running' && this.backlog > 0 && msSinceProgress > this.stallAfterMs,
    };
  }

  private watchBacklog(consumer: Consumer): void {
    const check = async (): Promise<void> => {
      try {
        const info = await consumer.info(false);
        this.backlog = info.num_pending + info.num_ack_pending;
        // Idle is not stalled: the clock starts when work shows up.
        if (this.backlog === 0) this.lastProgressAt = Date.now();
      } catch (error) {
        this.logger.debug({ err: error }, 'reading the consumer backlog failed');
      }
    };
    this.progressTimer = setInterval(() => void check(), this.progressCheckMs);
    this.progressTimer.unref();
    void check();
  }

  /** Messages currently held by this runner, parked ones included. */
  inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Held messages that are not parked: what the held limit counts. */
  private heldCount(): number {
    return this.inFlight.size - this.parked;
  }

  /**
   * Stops pulling, lets in-flight handlers finish until the deadline, then naks whatever is
   * still unsettled so another replica takes it at once.
   */
  drain(deadlineMs: number): Promise<void> {
    if (this.state === 'idle') this.state = 'stopped';
    if (this.state === 'stopped') return this.drained ?? Promise.resolve();
    if (this.state === 'draining') return this.drained ?? Promise.resolve();
    this.state = 'draining';
    this.drained = this.finishDrain(deadlineMs);
    return this.drained;
  }

  private async finishDrain(deadlineMs: number): Promise<void> {
    clearInterval(this.progressTimer);
    this.logger.info({ inFlight: this.inFlight.size, deadlineMs }, 'draining consumer runner');
    this.wakeOnFreeSlot?.();
    this.wakeFromPause?.();
    void this.batch?.close();
    // Queued messages never started: another replica may take them at once.
    for (const entry of this.admission.takeQueued()) {
      clearInterval(entry.keepAlive);
      this.nak(entry, 0);
      this.inFlight.delete(entry);
    }
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs);
    });
    await Promise.race([
      Promise.all([...[...this.inFlight].map((entry) => entry.done), ...this.absorbed]),
      deadline,
    ]);
    clearTimeout(timer);
    const abandoned = [...this.inFlight].filter((entry) => !entry.settling);
    for (const entry of abandoned) {
      clearInterval(entry.keepAlive);
      this.nak(entry, 0);
    }
    if (abandoned.length > 0) {
      this.logger.warn(
        { count: abandoned.length },
        'drain deadline passed; naked unfinished messages',
      );
    }
    await this.loop;
    this.state = 'stopped';
    this.logger.info('consumer runner stopped');
  }

  private async pullLoop(consumer: Consumer): Promise<void> {
    while (this.state === 'running') {
      await this.freeSlot();
      if (this.state !== 'running') return;
      const startedAt = Date.now();
      let received = 0;
      try {
        // Asking for exactly the free slots keeps the runner from holding messages it is
        // not yet working on while their ack_wait runs out.
        const batch = await consumer.fetch({
          max_messages: this.maxHeld() - this.heldCount(),
          expires: this.pullExpiresMs,
        });
        this.batch = batch;
        if (this.state !== 'running') void batch.close();
        for await (const msg of batch) {
          received += 1;
          this.accept(msg);
        }
      } catch (error) {
        if (this.state !== 'running') return;
        // Missed heartbeats while NATS is away, a deleted consumer, a timeout: pull again.
        this.logger.warn({ err: error }, 'pull failed; pulling again shortly');
        await this.pause(this.restartDelayMs);
        continue;
      } finally {
        this.batch = undefined;
      }
      // A pull that ends empty at once would otherwise spin.
      if (received === 0 && Date.now() - startedAt < 100) await this.pause(this.restartDelayMs);
    }
  }

  private freeSlot(): Promise<void> {
    if (this.state !== 'running' || this.heldCount() < this.maxHeld()) return Promise.resolve();
    return new Promise((resolve) => {
      this.wakeOnFreeSlot = () => {
        this.wakeOnFreeSlot = undefined;
        resolve();
      };
    });
  }

  private pause(ms: number): Promise<void> {
    if (this.state !== 'running') return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wakeFromPause?.(), ms);
      this.wakeFromPause = () => {
        clearTimeout(timer);
        this.wakeFromPause = undefined;
        resolve();
      };
    });
  }

  private maxHeld(): number {
    return Math.max(
      this.maxInFlight,
      this.options.fairness?.maxHeld ?? this.options.maxHeld ?? this.maxInFlight,
    );
  }

  private accept(msg: JsMsg): void {
    const key = this.admission.keyOf(msg.subject);
    const entry: InFlight = { msg, key, settling: false, parked: false, done: Promise.resolve() };
    if (this.state !== 'running') {
      // Arrived after drain began: hand it straight back.
      this.nak(entry, 0);
      return;
    }
    if (this.triaged(entry)) return;
    const admitted = this.admission.admit(key, msg.info.streamSequence);
    switch (admitted.kind) {
      case 'backlog_limit':
        // A key whose deferred messages pile up is flooding: its excess goes to the DLQ,
        // where an operator sees it, rather than filling max_ack_pending for everyone.
        void this.deadLetter(entry, admitted.reason);
        return;
      case 'defer':
        entry.settling = true;
        this.settle(msg, () => msg.nak(admitted.deferMs));
        this.count('deferred', msg);
        return;
      case 'hold':
        break;
    }
    this.inFlight.add(entry);
    // Held messages are kept alive too, or their ack_wait would run out in the queue.
    entry.keepAlive = setInterval(
      () => this.touch(entry),
      Math.max(100, Math.floor(this.ackWaitMs / 3)),
    );
    this.admission.enqueue(entry);
    this.dispatch();
  }

  /** Starts queued messages, oldest first, skipping keys already at their running limit. */
  private dispatch(): void {
    for (const entry of this.admission.takeRunnable(this.maxInFlight - this.running)) {
      this.run(entry);
    }
  }

  private run(entry: InFlight): void {
    this.running += 1;
    entry.done = this.process(entry)
      .catch((error: unknown) => {
        this.logger.error({ err: error, streamSeq: entry.msg.seq }, 'settling a message failed');
        if (!entry.settling) this.nak(entry, 0);
      })
      .finally(() => {
        clearInterval(entry.keepAlive);
        // A handler given up on while parked had given its slot back already.
        if (entry.parked) {
          entry.parked = false;
          this.parked -= 1;
        } else {
          this.running -= 1;
        }
        this.admission.finished(entry);
        this.inFlight.delete(entry);
        this.dispatch();
        this.wakeOnFreeSlot?.();
      });
  }

  /** Whether triage set the message aside. */
  private triaged(entry: InFlight): boolean {
    const { triage } = this.options;
    const { msg } = entry;
    if (triage === undefined) return false;
    if (this.maxDeliver > 0 && msg.info.deliveryCount >= this.maxDeliver) return false;
    let verdict: TriageVerdict | undefined;
    try {
      verdict = triage(msg.subject, msg.data);
    } catch (error) {
      this.logger.warn({ ...this.describe(msg), err: error }, 'triage threw; handling the message');
      return false;
    }
    if (verdict === undefined) return false;
    entry.settling = true;
    if ('deferMs' in verdict) {
      this.settle(msg, () => msg.nak(verdict.deferMs));
      this.count('deferred', msg);
      return true;
    }
    // Kept alive while the other work runs, as a held message is.
    const keepAlive = setInterval(
      () => this.settle(msg, () => msg.working()),
      Math.max(100, Math.floor(this.ackWaitMs / 3)),
    );
    const done: Promise<void> = verdict.absorbed
      .then(
        () => {
          this.settle(msg, () => msg.ack());
          this.lastProgressAt = Date.now();
          this.count('acked', msg);
        },
        (error: unknown) => {
          this.logger.warn({ ...this.describe(msg), err: error }, 'absorbed work failed; nak');
          this.settle(msg, () => msg.nak(retryDelayMs(msg.info.deliveryCount, this.retryPolicy)));
          this.count('naked', msg);
        },
      )
      .finally(() => {
        clearInterval(keepAlive);
        this.absorbed.delete(done);
      });
    this.absorbed.add(done);
    return true;
  }

  private async process(entry: InFlight): Promise<void> {
    const { msg } = entry;
    const touch = (): void => this.touch(entry);
    let failure: unknown;
    let failed = false;
    let deadline: NodeJS.Timeout | undefined;
    try {
      // Wrapped so a handler that throws synchronously is treated like one that rejects.
      const handled = Promise.resolve().then(() => {
        const delivered = toDeliveredMessage(msg, touch, (waiting) => this.park(entry, waiting));
        return traceConsume(delivered, this.options.durable, this.options.handler);
      });
      // `working()` keeps a hung handler's message alive for ever; past the deadline the
      // runner stops waiting. The handler itself cannot be cancelled, so its late result is
      // swallowed here and `settling` keeps it from touching the message again.
      const timedOut = new Promise<never>((_, reject) => {
        deadline = setTimeout(
          () => reject(new HandlerTimedOut(this.handlerTimeoutMs)),
          this.handlerTimeoutMs,
        );
      });
      handled.catch(() => undefined);
      await Promise.race([handled, timedOut]);
    } catch (error) {
      failed = true;
      failure = error;
    } finally {
      clearTimeout(deadline);
      clearInterval(entry.keepAlive);
    }
    if (failure instanceof HandlerTimedOut && !entry.settling) {
      this.logger.error(
        { ...this.describe(msg), timeoutMs: this.handlerTimeoutMs },
        'handler exceeded its deadline; abandoned',
      );
      try {
        this.options.onAbandoned?.(msg.subject);
      } catch (error) {
        this.logger.warn({ err: error }, 'abandoned hook threw');
      }
    }
    // Drain gave up on this message and naked it already.
    if (entry.settling) return;
    if (!failed) return this.ack(entry);

    const reason = failureReason(failure);
    const deliveryCount = msg.info.deliveryCount;
    if (failure instanceof PermanentFailure) return this.deadLetter(entry, reason);
    if (this.maxDeliver > 0 && deliveryCount >= this.maxDeliver) {
      return this.deadLetter(entry, `max_deliver_exhausted: ${reason}`);
    }
    const retryAfterMs = failure instanceof TransientFailure ? failure.retryAfterMs : undefined;
    const delayMs = retryDelayMs(deliveryCount, this.retryPolicy, retryAfterMs);
    this.logger.warn(
      {
        ...this.describe(msg),
        reason,
        delayMs,
        ...(failure instanceof TransientFailure ? {} : { err: failure }),
      },
      'handler failed; nak with delay',
    );
    this.nak(entry, delayMs);
  }

  /**
   * The handler waits on something no other message needs: its slot goes to the next queued
   * message and its place among the held ones to the next pull, until the wait is over. It
   * then carries on at once, so for a moment more than maxInFlight may run; the waits that
   * end together are few (a bucket lets one call through at a time).
   */
  private async park<T>(entry: InFlight, waiting: Promise<T>): Promise<T> {
    if (entry.parked || entry.settling || this.parked >= this.maxParked) return waiting;
    entry.parked = true;
    this.parked += 1;
    this.running -= 1;
    this.dispatch();
    this.wakeOnFreeSlot?.();
    try {
      return await waiting;
    } finally {
      if (entry.parked) {
        entry.parked = false;
        this.parked -= 1;
        this.running += 1;
      }
    }
  }

  private async ack(entry: InFlight): Promise<void> {
    entry.settling = true;
    if (this.options.confirmAcks === false) {
      this.settle(entry.msg, () => entry.msg.ack());
      this.lastProgressAt = Date.now();
      this.count('acked', entry.msg);
      return;
    }
    try {
      // ackAck waits for the server to confirm, so an ack lost in a disconnect is seen.
      await entry.msg.ackAck({ timeout: ACK_CONFIRM_TIMEOUT_MS });
    } catch (error) {
      this.logger.warn(
        { ...this.describe(entry.msg), err: error },
        'ack not confirmed; the message may be redelivered',
      );
    }
    this.lastProgressAt = Date.now();
    this.count('acked', entry.msg);
  }

  private async deadLetter(entry: InFlight, reason: string): Promise<void> {
    entry.settling = true;
    const { msg } = entry;
    // A fresh ack_wait covers the publish, which is bounded to half of it, so the message
    // is not redelivered elsewhere while its copy is still on the way.
    this.settle(msg, () => msg.working());
    try {
      await this.deadLetters.publish(msg, reason, Math.max(1_000, Math.floor(this.ackWaitMs / 2)));
    } catch (error) {
      const delayMs = retryDelayMs(msg.info.deliveryCount, this.retryPolicy);
      this.logger.error(
        { ...this.describe(msg), reason, err: error, delayMs },
        'dead-letter publish failed; nak so the message is not lost',
      );
      this.nak(entry, delayMs);
      return;
    }
    this.settle(msg, () => msg.term());
    this.lastProgressAt = Date.now();
    this.logger.warn(
      { ...this.describe(msg), reason, dlqSubject: this.options.dlqSubject },
      'message dead-lettered',
    );
    this.count('dead_lettered', msg);
  }

  private nak(entry: InFlight, delayMs: number): void {
    entry.settling = true;
    const { msg } = entry;
    this.settle(msg, () => (delayMs > 0 ? msg.nak(delayMs) : msg.nak()));
    this.count('naked', msg);
  }

  private touch(entry: InFlight): void {
    if (entry.settling) return;
    this.settle(entry.msg, () => entry.msg.working());
  }

  /** Acks go out on the connection; a closed one throws, which must not escape a timer. */
  private settle(msg: JsMsg, send: () => void): void {
    try {
      send();
    } catch (error) {
      this.logger.warn({ ...this.describe(msg), err: error }, 'could not reach nats to settle');
    }
  }

  private count(outcome: ConsumerOutcome, msg: JsMsg): void {
    try {
      this.options.onOutcome?.(outcome, msg.subject);
    } catch (error) {
      this.logger.warn({ err: error, outcome }, 'outcome hook threw');
    }
  }

  private describe(msg: JsMsg): Record<string, unknown> {
    return {
      subject: msg.subject,
      streamSeq: msg.info.streamSequence,
      deliveryCount: msg.info.deliveryCount,
    };
  }
}

/** A handler that ran past the runner's deadline; retried like any transient failure. */
class HandlerTimedOut extends TransientFailure {
  constructor(timeoutMs: number) {
    super(`handler_timeout: no result within ${timeoutMs} ms`);
  }
}
