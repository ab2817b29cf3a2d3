import type { Logger } from 'pino';
import type {
  DecideOptions,
  DecisionResult,
  InboxEntry,
  SessionStore,
} from '../journal/session-store';
import type { SessionCommand } from '../session/domain/sub-agent';
import { routeFailure } from './scheduler-failure.policy';
import { deferred, type SchedulerItem as Item, type Submitted } from './scheduler-item';
import { SessionMailbox } from './session-mailbox';
import { causeOf, SessionSettler, type SessionSettlerOptions } from './session-settler';

export { isTransient } from './scheduler-failure.policy';
export type { Submitted } from './scheduler-item';

export interface SessionSchedulerOptions extends SessionSettlerOptions {
  readonly store: SessionStore;
  /** Decides one command (its whole turn, I/O included). */
  readonly decide: (command: SessionCommand, options: DecideOptions) => Promise<DecisionResult>;
  readonly logger: Logger;
  /** TOLLGATE_MAX_TURNS: sessions with a turn in flight at once. */
  readonly maxTurns: number;
  readonly onTurns?: (inFlight: number) => void;
}

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
  private readonly settler: SessionSettler;

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
    this.settler = new SessionSettler(options, this.logger, () => this.stopping, this.dispatched);
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
        return this.settler.settle(sessionId, 'recovery of a turn left in flight');
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
          return this.settler.settle(sessionId, 'a timer decision that failed part-way');
        case 'end_turn':
          item.done.resolve();
          this.logger.error(
            { err: causeOf(error), sessionId },
            'a timer decision failed after a partial commit and cannot be retried; ending its turn',
          );
          await this.settler.endTurn(sessionId);
          return;
        case 'quarantine':
          await this.settler.quarantine(sessionId, error);
          item.done.resolve();
          return;
        default:
          item.done.reject(error);
      }
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
          return this.settler.afterPartialCommit(sessionId, command, error, route.kind);
        case 'quarantine':
          await this.settler.quarantine(sessionId, error);
          break;
        default:
          break;
      }
      // Nothing of it was committed: its message is naked (or dead-lettered) and redelivered.
      submitted.reject(error);
    }
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
          await this.settler.deadLetter(command, 'session_quarantined');
        }
        return;
      } catch (error) {
        const route = routeFailure({ kind: 'queued', durable }, error);
        switch (route.kind) {
          case 'recover':
          case 'end_turn':
            return this.settler.afterPartialCommit(sessionId, command, error, route.kind);
          case 'quarantine':
            return this.settler.quarantine(sessionId, error);
          case 'dead_letter':
            // Its message was acked when it was queued: dead-letter the command ourselves.
            this.logger.error(
              { err: error, sessionId, commandId: command.id },
              'a queued command cannot be decided; dead-lettering it',
            );
            await this.settler.deadLetter(command, route.reason, () =>
              this.options.store.dropQueued(position),
            );
            return;
          default:
            await this.settler.pause(attempt, error, sessionId);
        }
      }
    }
  }

  /** Sets the session aside (S18): logged with its id, counted, its prompts expired. */
  quarantine(sessionId: string, error: unknown): Promise<void> {
    return this.settler.quarantine(sessionId, error);
  }

  /**
   * A decision queued commands for related sessions (a sub-agent's task, its result, an
   * abandon): their rows are committed, so they are decided like any queued command.
   */
  private readonly dispatched = (entries: readonly InboxEntry[]): void => {
    this.resume([], entries);
  };
}
