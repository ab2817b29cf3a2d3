import { classifyDatabaseError } from '@tollgate/persistence';
import type { Logger } from 'pino';
import {
  type DecideOptions,
  type DecisionResult,
  type InboxEntry,
  PartiallyCommittedDecision,
  type SessionStore,
} from '../journal/session-store';
import type { SessionCommand } from '../session/domain/sub-agent';
import { reasonOf, routeFailure } from './scheduler-failure.policy';
import { SessionMailbox } from './session-mailbox';

export { isTransient } from './scheduler-failure.policy';

/** How a submitted command was settled once its message may be acked. */
export type Submitted = 'decided' | 'queued' | 'duplicate' | 'quarantined';

export interface SessionSchedulerOptions {
  readonly store: SessionStore;
  /** Decides one command (its whole turn, I/O included). */
  readonly decide: (command: SessionCommand, options: DecideOptions) => Promise<DecisionResult>;
  /** Settles a turn left in flight (a crash, a failed commit) from the journal. */
  readonly recover: (sessionId: string, options: DecideOptions) => Promise<DecisionResult>;
  /** Ends a turn left in flight with a notice, for a failure retrying cannot cure. */
  readonly failInFlight: (sessionId: string, options: DecideOptions) => Promise<DecisionResult>;
  readonly logger: Logger;
  /** TOLLGATE_MAX_TURNS: sessions with a turn in flight at once. */
  readonly maxTurns: number;
  /** First retry delay after a failure; doubles up to `retryMaxMs`. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** A queued command that can never be decided: its message is gone, so copy it aside. */
  readonly deadLetter: (command: SessionCommand, reason: string) => Promise<void>;
  readonly onQuarantine?: (sessionId: string, reason: string) => void;
  readonly onTurns?: (inFlight: number) => void;
}

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
  settled: boolean;
}

type Item =
  /** Arrived while nothing ran for its session: decided at once, acked at its first commit. */
  | {
      readonly kind: 'direct';
      readonly command: SessionCommand;
      readonly submitted: Deferred<Submitted>;
    }
  /** Waits in `session_inbox`; `position` settles once the row is committed. */
  | {
      readonly kind: 'queued';
      readonly command: SessionCommand;
      readonly position: Promise<string | undefined>;
    }
  | { readonly kind: 'recover' }
  /**
   * S22: a prompt timer's decision, in line with the session's commands. It carries its own
   * ledger key, so `done` settles once it was decided, found a duplicate or a quarantine.
   */
  | {
      readonly kind: 'timer';
      readonly decide: () => Promise<DecisionResult>;
      readonly done: Deferred<void>;
    };

/**
 * Decides the commands of each session one at a time, in arrival order, while any number of
 * sessions (up to TOLLGATE_MAX_TURNS) wait on the model or a tool at once (S14, S15).
 *
 * A command for a session with nothing running is decided at once, and its message is acked
 * as soon as the decision's first commit lands (before any model call). A command for a busy
 * session is written to the session's inbox and acked; it is decided when its turn comes,
 * from the inbox row, so a crash loses nothing and no message waits for a turn. A decision
 * that fails after committing part of itself is recovered from the journal with a growing
 * delay, in this process (S18); a session whose journal cannot be replayed is quarantined.
 */
export class SessionScheduler {
  private readonly mailbox: SessionMailbox<Item>;
  private readonly logger: Logger;

  constructor(private readonly options: SessionSchedulerOptions) {
    this.logger = options.logger.child({ component: 'session-scheduler' });
    this.mailbox = new SessionMailbox<Item>({
      maxActive: options.maxTurns,
      process: (sessionId, item) => this.process(sessionId, item),
      onFailure: (sessionId, item, error) => {
        // The journal holds the truth; the item is dropped rather than retried in a loop.
        this.logger.error({ err: error, sessionId }, 'session worker failed');
        if (item.kind === 'timer') item.done.reject(error);
      },
      ...(options.onTurns === undefined ? {} : { onActive: options.onTurns }),
    });
  }

  private get stopping(): boolean {
    return this.mailbox.isStopping;
  }

  /** Resolves once the command is durable (decided in part, queued, or a duplicate). */
  submit(command: SessionCommand): Promise<Submitted> {
    if (this.mailbox.wouldStartNow(command.sessionId)) {
      const submitted = deferred<Submitted>();
      this.mailbox.post(command.sessionId, { kind: 'direct', command, submitted });
      return submitted.promise;
    }
    const enqueued = this.options.store.queue(command);
    // Posted now, in arrival order; its turn waits for the row before deciding it.
    this.mailbox.post(command.sessionId, {
      kind: 'queued',
      command,
      position: enqueued.then(
        (r) => (r.kind === 'queued' ? r.position : undefined),
        () => undefined,
      ),
    });
    return enqueued.then((r) => r.kind);
  }

  /** A new process: settle the turns left in flight, then decide what was queued. */
  resume(
    inFlight: readonly string[],
    queued: readonly { position: string; command: SessionCommand }[],
  ) {
    for (const sessionId of inFlight) this.mailbox.post(sessionId, { kind: 'recover' });
    for (const { position, command } of queued) {
      this.mailbox.post(command.sessionId, {
        kind: 'queued',
        command,
        position: Promise.resolve(position),
      });
    }
  }

  /**
   * S22: decides a due prompt timer when the session's turn comes, ordered with its commands.
   * Resolves once the timer is settled; rejects when it was not, so its row is tried again.
   */
  submitTimer(sessionId: string, decide: () => Promise<DecisionResult>): Promise<void> {
    const done = deferred<void>();
    if (this.stopping) {
      done.reject(new Error('the scheduler is stopping'));
      return done.promise;
    }
    this.mailbox.post(sessionId, { kind: 'timer', decide, done });
    return done.promise;
  }

  /** Sessions with a turn being decided right now. */
  get turnsInFlight(): number {
    return this.mailbox.activeSessions;
  }

  /** Sessions holding a worker (deciding, or waiting for a turn slot). */
  get sessionsBusy(): number {
    return this.mailbox.busySessions;
  }

  /**
   * Stops taking commands directly and waits up to `deadlineMs` for the turns under way. What
   * is still running then is in flight in the journal and the next process resumes it.
   */
  async drain(deadlineMs: number): Promise<void> {
    await this.mailbox.stop(deadlineMs);
  }

  private async process(sessionId: string, item: Item): Promise<void> {
    switch (item.kind) {
      case 'direct':
        return this.decideDirect(sessionId, item);
      case 'queued':
        return this.decideQueued(sessionId, item);
      case 'recover':
        return this.settle(sessionId, 'recovery of a turn left in flight');
      case 'timer':
        return this.decideTimer(sessionId, item);
    }
  }

  private async decideTimer(
    sessionId: string,
    item: Extract<Item, { kind: 'timer' }>,
  ): Promise<void> {
    try {
      await item.decide();
      item.done.resolve();
    } catch (error) {
      const route = routeFailure({ kind: 'timer' }, error);
      switch (route.kind) {
        case 'recover':
          // Its ledger row committed: the timer is spent, and its turn is recovered here.
          item.done.resolve();
          return this.settle(sessionId, 'a timer decision that failed part-way');
        case 'end_turn':
          item.done.resolve();
          this.logger.error(
            { err: causeOf(error), sessionId },
            'a timer decision failed after a partial commit and cannot be retried; ending its turn',
          );
          await this.endTurn(sessionId);
          return;
        case 'quarantine':
          await this.quarantine(sessionId, error);
          item.done.resolve();
          return;
        default:
          item.done.reject(error);
      }
    }
  }

  /** Ends a turn with a notice; whether that was recorded (if not, it is recovered instead). */
  private async endTurn(sessionId: string): Promise<boolean> {
    try {
      await this.options.failInFlight(sessionId, { onDispatched: this.dispatched });
      return true;
    } catch (failure) {
      this.logger.warn({ err: failure, sessionId }, 'ending the failed turn failed too');
      await this.settle(sessionId, 'a turn whose failure could not be recorded');
      return false;
    }
  }

  private async decideDirect(
    sessionId: string,
    item: Extract<Item, { kind: 'direct' }>,
  ): Promise<void> {
    const { command, submitted } = item;
    try {
      const result = await this.options.decide(command, {
        onDurable: () => submitted.resolve('decided'),
        onDispatched: this.dispatched,
      });
      submitted.resolve(result.kind);
    } catch (error) {
      const route = routeFailure({ kind: 'direct', durable: submitted.settled }, error);
      switch (route.kind) {
        case 'recover':
        case 'end_turn':
          return this.afterPartialCommit(sessionId, command, error, route.kind);
        case 'quarantine':
          await this.quarantine(sessionId, error);
          break;
        default:
          break;
      }
      // Nothing of it was committed: its message is naked (or dead-lettered) and redelivered.
      submitted.reject(error);
    }
  }

  /**
   * A decision failed after some of it committed, so its message is acked and a redelivery
   * would be a duplicate. A failure that may pass (the database away, a lock not granted)
   * is recovered from the journal, retried with a growing delay (S18); one that would fail
   * the same way again (a write PostgreSQL refuses) ends the turn with a notice and
   * dead-letters a copy of the command for an operator (X8).
   */
  private async afterPartialCommit(
    sessionId: string,
    command: SessionCommand,
    error: unknown,
    route: 'recover' | 'end_turn',
  ): Promise<void> {
    const cause = causeOf(error);
    if (route === 'recover') {
      this.logger.warn(
        { err: cause, sessionId, commandId: command.id },
        'a decision failed after a partial commit; recovering it from the journal',
      );
      return this.settle(sessionId, 'a decision that failed part-way');
    }
    this.logger.error(
      { err: cause, sessionId, commandId: command.id },
      'a decision failed after a partial commit and cannot be retried; ending its turn',
    );
    let settled = false;
    try {
      await this.options.failInFlight(sessionId, { onDispatched: this.dispatched });
      settled = true;
    } catch (failure) {
      this.logger.warn({ err: failure, sessionId }, 'ending the failed turn failed too');
    }
    const why = classifyDatabaseError(cause)?.reason ?? reasonOf(cause);
    await this.retrying(`dead-lettering ${command.id}`, () =>
      this.options.deadLetter(
        command,
        `decision_failed_after_commit (${settled ? 'turn_settled' : 'turn_left_in_flight'}): ${why}`,
      ),
    );
    if (!settled) await this.settle(sessionId, 'a turn whose failure could not be recorded');
  }

  private async decideQueued(
    sessionId: string,
    item: Extract<Item, { kind: 'queued' }>,
  ): Promise<void> {
    const position = await item.position;
    // Not queued after all (a duplicate, or the insert failed and the message was naked).
    if (position === undefined) return;
    const { command } = item;
    for (let attempt = 0; ; attempt += 1) {
      let durable = false;
      try {
        const result = await this.options.decide(command, {
          inboxPosition: position,
          onDurable: () => (durable = true),
          onDispatched: this.dispatched,
        });
        if (result.kind === 'quarantined') {
          await this.retrying(`dead-lettering ${command.id}`, () =>
            this.options.deadLetter(command, 'session_quarantined'),
          );
        }
        return;
      } catch (error) {
        const route = routeFailure({ kind: 'queued', durable }, error);
        switch (route.kind) {
          case 'recover':
          case 'end_turn':
            return this.afterPartialCommit(sessionId, command, error, route.kind);
          case 'quarantine':
            return this.quarantine(sessionId, error);
          case 'dead_letter':
            // Its message was acked when it was queued: dead-letter the command ourselves.
            this.logger.error(
              { err: error, sessionId, commandId: command.id },
              'a queued command cannot be decided; dead-lettering it',
            );
            await this.retrying(`dead-lettering ${command.id}`, async () => {
              await this.options.deadLetter(command, route.reason);
              await this.options.store.dropQueued(position);
            });
            return;
          default:
            await this.pause(attempt, error, sessionId);
        }
      }
    }
  }

  /** Recovers the session from its journal until that works, or quarantines it. */
  private async settle(sessionId: string, why: string): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await this.options.recover(sessionId, { onDispatched: this.dispatched });
        if (attempt > 0) this.logger.info({ sessionId, why }, 'session recovered');
        return;
      } catch (error) {
        if (routeFailure({ kind: 'recover' }, error).kind === 'quarantine') {
          return this.quarantine(sessionId, error);
        }
        await this.pause(attempt, error, sessionId);
      }
    }
  }

  /** Sets the session aside (S18): logged with its id, counted, its prompts expired. */
  async quarantine(sessionId: string, error: unknown): Promise<void> {
    const reason = reasonOf(error);
    this.logger.error({ err: error, sessionId, reason }, 'session quarantined');
    this.options.onQuarantine?.(sessionId, reason);
    await this.retrying(`quarantining ${sessionId}`, async () => {
      const { dispatched } = await this.options.store.quarantine(sessionId, reason);
      this.dispatched(dispatched);
    });
  }

  /**
   * A decision queued commands for related sessions (a sub-agent's task, its result, an
   * abandon): their rows are committed, so they are decided like any queued command.
   */
  private readonly dispatched = (entries: readonly InboxEntry[]): void => {
    this.resume([], entries);
  };

  private async retrying(what: string, work: () => Promise<unknown>): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await work();
        return;
      } catch (error) {
        if (this.stopping) throw error;
        await this.pause(attempt, error, what);
      }
    }
  }

  private async pause(attempt: number, error: unknown, about: string): Promise<void> {
    const delayMs = Math.min(
      this.options.retryMaxMs,
      this.options.retryBaseMs * 2 ** Math.min(attempt, 20),
    );
    this.logger.warn({ err: error, about, attempt, delayMs }, 'retrying after a failure');
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (this.stopping) throw error;
  }
}

/** What a partial commit failed with, under the wrapper that says it was partial. */
function causeOf(error: unknown): unknown {
  return error instanceof PartiallyCommittedDecision ? error.cause : error;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const d: Deferred<T> = {
    promise,
    settled: false,
    resolve: (value) => {
      if (d.settled) return;
      d.settled = true;
      resolve(value);
    },
    reject: (error) => {
      if (d.settled) return;
      d.settled = true;
      reject(error);
    },
  };
  return d;
}
