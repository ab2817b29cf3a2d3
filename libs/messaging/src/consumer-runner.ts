import type { JsMsg } from '@nats-io/jetstream';
import { millis } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { ConsumerAdmission } from './consumer-admission';
import { ConsumerProgressWatch } from './consumer-progress';
import { ConsumerTriage } from './consumer-triage';
import {
  DEFAULT_HANDLER_TIMEOUT_MS,
  type ConsumerProgress,
  type ConsumerRunnerOptions,
} from './consumer-runner.options';
import { DeadLetterPublisher } from './dead-letter';
import { handleDelivery, type DeliveryHandling, type HeldDelivery } from './handle-delivery';
import { HandlerSlots } from './handler-slots';
import { keepAliveEveryMs, MessageSettler } from './message-settler';
import { PullLoop } from './pull-loop';

export * from './consumer-runner.options';
export { fitToMaxPayload } from './dead-letter';

type RunnerState = 'idle' | 'running' | 'draining' | 'stopped';

interface InFlight extends HeldDelivery {
  readonly key?: string;
  /** Waiting in DeliveredMessage.park: holds no slot and does not count as held. */
  parked: boolean;
  /** Resolves once the message is settled; never rejects. */
  done: Promise<void>;
}

/**
 * Pulls from one durable consumer and settles every message from what its handler did:
 * returned → ack; TransientFailure or any other error → nak with a growing delay;
 * PermanentFailure, or a transient failure on the last allowed delivery → copy to the DLQ,
 * then a plain `term()`. The runner dead-letters the last delivery itself because an
 * exhausted max_deliver leaves the message sitting in the stream with no notice anyone
 * would see, and nats-server 2.9 drops a reason given to `term`. This file holds the
 * message's life in the runner (accept, admit, run, park, drain); pulling, the progress
 * watch, a handler's run and its outcome → settle decision, the slot count and settling
 * itself live in their own files.
 */
export class ConsumerRunner {
  private state: RunnerState = 'idle';
  /** Every message held: running, or queued until its key may run. */
  private readonly inFlight = new Set<InFlight>();
  private readonly slots: HandlerSlots;
  private readonly admission: ConsumerAdmission<InFlight>;
  private readonly settler: MessageSettler;
  private readonly progressWatch: ConsumerProgressWatch;
  private readonly pulling: PullLoop;
  private readonly triage: ConsumerTriage;
  private readonly delivery: DeliveryHandling;
  private readonly logger: Logger;
  private readonly maxInFlight: number;
  private readonly retryPolicy: { baseMs: number; maxMs: number };
  private ackWaitMs = 30_000;
  private maxDeliver = -1;
  private loop?: Promise<void>;
  private drained?: Promise<void>;

  constructor(private readonly options: ConsumerRunnerOptions) {
    this.admission = new ConsumerAdmission<InFlight>(options.fairness, () => this.ackWaitMs);
    this.logger = options.logger.child({ stream: options.stream, durable: options.durable });
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 16);
    this.retryPolicy = {
      baseMs: options.retryBaseMs ?? 1_000,
      maxMs: options.retryMaxMs ?? 5 * 60_000,
    };
    this.progressWatch = new ConsumerProgressWatch(
      this.logger,
      options.stallAfterMs ?? 120_000,
      options.progressCheckMs ?? 5_000,
    );
    this.settler = new MessageSettler({
      logger: this.logger,
      deadLetters: new DeadLetterPublisher(options.js, {
        stream: options.stream,
        service: options.service,
        dlqSubject: options.dlqSubject,
        ...(options.maxPayloadBytes === undefined
          ? {}
          : { maxPayloadBytes: options.maxPayloadBytes }),
      }),
      dlqSubject: options.dlqSubject,
      retryPolicy: this.retryPolicy,
      confirmAcks: options.confirmAcks !== false,
      ackWaitMs: () => this.ackWaitMs,
      moved: () => this.progressWatch.moved(),
      onOutcome: options.onOutcome,
    });
    this.triage = new ConsumerTriage({
      triage: options.triage,
      logger: this.logger,
      settler: this.settler,
      retryPolicy: this.retryPolicy,
      ackWaitMs: () => this.ackWaitMs,
      moved: () => this.progressWatch.moved(),
    });
    this.pulling = new PullLoop(
      {
        isRunning: () => this.state === 'running',
        freeSlots: () => this.maxHeld() - this.heldCount(),
        // Half the room held beyond the handler slots: the queue still feeds every slot while
        // the pull is under way. Without that room (the default), every freed slot pulls.
        refillAt: () => Math.max(1, Math.floor((this.maxHeld() - this.maxInFlight) / 2)),
        accept: (msg) => this.accept(msg),
      },
      this.logger,
      Math.max(1_000, options.pullExpiresMs ?? 10_000),
      options.restartDelayMs ?? 1_000,
    );
    this.slots = new HandlerSlots(this.maxInFlight, Math.max(0, options.maxParked ?? 512));
    this.delivery = {
      handler: options.handler,
      durable: options.durable,
      handlerTimeoutMs: Math.max(1, options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS),
      retryPolicy: this.retryPolicy,
      maxDeliver: () => this.maxDeliver,
      settler: this.settler,
      logger: this.logger,
      onAbandoned: options.onAbandoned,
    };
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
    this.progressWatch.start(consumer);
    this.loop = this.pulling.run(consumer);
    this.logger.info(
      { ackWaitMs: this.ackWaitMs, maxDeliver: this.maxDeliver, maxInFlight: this.maxInFlight },
      'consumer runner started',
    );
  }

  isRunning(): boolean {
    return this.state === 'running';
  }

  /** Whether messages are being settled while a backlog waits, for readiness and metrics. */
  progress(): ConsumerProgress {
    return this.progressWatch.read(this.state === 'running');
  }

  /** Messages currently held by this runner, parked ones included. */
  inFlightCount(): number {
    return this.inFlight.size;
  }

  /** Held messages that are not parked: what the held limit counts. */
  private heldCount(): number {
    return this.inFlight.size - this.slots.parked();
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
    this.progressWatch.stop();
    this.logger.info({ inFlight: this.inFlight.size, deadlineMs }, 'draining consumer runner');
    this.pulling.stop();
    // Queued messages never started: another replica may take them at once.
    for (const entry of this.admission.takeQueued()) {
      clearInterval(entry.keepAlive);
      this.settler.nak(entry, 0);
      this.inFlight.delete(entry);
    }
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs);
    });
    await Promise.race([
      Promise.all([...[...this.inFlight].map((entry) => entry.done), ...this.triage.unsettled()]),
      deadline,
    ]);
    clearTimeout(timer);
    const abandoned = [...this.inFlight].filter((entry) => !entry.settling);
    for (const entry of abandoned) {
      clearInterval(entry.keepAlive);
      this.settler.nak(entry, 0);
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

  private maxHeld(): number {
    return Math.max(
      this.maxInFlight,
      this.options.fairness?.maxHeld ?? this.options.maxHeld ?? this.maxInFlight,
    );
  }

  /** Whether the message is held (false: settled, set aside or handed back). */
  private accept(msg: JsMsg): boolean {
    const key = this.admission.keyOf(msg.subject);
    const entry: InFlight = { msg, key, settling: false, parked: false, done: Promise.resolve() };
    if (this.state !== 'running') {
      // Arrived after drain began: hand it straight back.
      this.settler.nak(entry, 0);
      return false;
    }
    const lastDelivery = this.maxDeliver > 0 && msg.info.deliveryCount >= this.maxDeliver;
    if (this.triage.setAside(entry, lastDelivery)) return false;
    const admitted = this.admission.admit(key, msg.info.streamSequence);
    switch (admitted.kind) {
      case 'backlog_limit':
        // A key whose deferred messages pile up is flooding: its excess goes to the DLQ,
        // where an operator sees it, rather than filling max_ack_pending for everyone.
        void this.settler.deadLetter(entry, admitted.reason);
        return false;
      case 'defer':
        this.settler.defer(entry, admitted.deferMs);
        return false;
      case 'hold':
        break;
    }
    this.inFlight.add(entry);
    // Held messages are kept alive too, or their ack_wait would run out in the queue.
    entry.keepAlive = setInterval(
      () => this.settler.touch(entry),
      keepAliveEveryMs(this.ackWaitMs),
    );
    this.admission.enqueue(entry);
    this.dispatch();
    return true;
  }

  /** Starts queued messages, oldest first, skipping keys already at their running limit. */
  private dispatch(): void {
    for (const entry of this.admission.takeRunnable(this.slots.free())) {
      this.run(entry);
    }
  }

  private run(entry: InFlight): void {
    this.slots.start();
    entry.done = handleDelivery(this.delivery, entry, (waiting) => this.park(entry, waiting))
      .catch((error: unknown) => {
        this.logger.error({ err: error, streamSeq: entry.msg.seq }, 'settling a message failed');
        if (!entry.settling) this.settler.nak(entry, 0);
      })
      .finally(() => {
        clearInterval(entry.keepAlive);
        // A handler given up on while parked had given its slot back already.
        this.slots.end(entry);
        this.admission.finished(entry);
        this.inFlight.delete(entry);
        this.dispatch();
        this.pulling.slotFreed();
      });
  }

  /**
   * The handler waits on something no other message needs: its slot goes to the next queued
   * message and its place among the held ones to the next pull, until the wait is over. It
   * then carries on at once, so for a moment more than maxInFlight may run; the waits that
   * end together are few (a bucket lets one call through at a time).
   */
  private async park<T>(entry: InFlight, waiting: Promise<T>): Promise<T> {
    if (!this.slots.park(entry)) return waiting;
    this.dispatch();
    this.pulling.slotFreed();
    try {
      return await waiting;
    } finally {
      this.slots.unpark(entry);
    }
  }
}
