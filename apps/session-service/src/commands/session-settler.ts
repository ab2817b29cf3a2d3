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

export interface SessionSettlerOptions {
  readonly store: SessionStore;
  /** Settles a turn left in flight (a crash, a failed commit) from the journal. */
  readonly recover: (sessionId: string, options: DecideOptions) => Promise<DecisionResult>;
  /** Ends a turn left in flight with a notice, for a failure retrying cannot cure. */
  readonly failInFlight: (sessionId: string, options: DecideOptions) => Promise<DecisionResult>;
  /** A queued command that can never be decided: its message is gone, so copy it aside. */
  readonly deadLetter: (command: SessionCommand, reason: string) => Promise<void>;
  readonly onQuarantine?: (sessionId: string, reason: string) => void;
  /** First retry delay after a failure; doubles up to `retryMaxMs`. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
}

/**
 * What the scheduler does once a decision has failed (S18, X8): recover the session from its
 * journal until that works, end a turn that retrying cannot cure, quarantine a session whose
 * journal cannot be replayed, and retry its own bookkeeping with a growing delay. Where a
 * failure goes is `routeFailure`'s to say; this carries it out. It runs inside the session's
 * worker, so nothing else of that session is decided meanwhile.
 */
export class SessionSettler {
  constructor(
    private readonly options: SessionSettlerOptions,
    private readonly logger: Logger,
    private readonly isStopping: () => boolean,
    /** Commands a decision queued for related sessions, to be decided in their turn. */
    readonly dispatched: (entries: readonly InboxEntry[]) => void,
  ) {}

  /** Recovers the session from its journal until that works, or quarantines it. */
  async settle(sessionId: string, why: string): Promise<void> {
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

  /** Ends a turn with a notice; whether that was recorded (if not, it is recovered instead). */
  async endTurn(sessionId: string): Promise<boolean> {
    try {
      await this.options.failInFlight(sessionId, { onDispatched: this.dispatched });
      return true;
    } catch (failure) {
      this.logger.warn({ err: failure, sessionId }, 'ending the failed turn failed too');
      await this.settle(sessionId, 'a turn whose failure could not be recorded');
      return false;
    }
  }

  /**
   * A decision failed after some of it committed, so its message is acked and a redelivery
   * would be a duplicate. A failure that may pass (the database away, a lock not granted)
   * is recovered from the journal, retried with a growing delay (S18); one that would fail
   * the same way again (a write PostgreSQL refuses) ends the turn with a notice and
   * dead-letters a copy of the command for an operator (X8).
   */
  async afterPartialCommit(
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

  /** Copies a command that can never be decided aside, however long that takes. */
  deadLetter(command: SessionCommand, reason: string, then?: () => Promise<unknown>) {
    return this.retrying(`dead-lettering ${command.id}`, async () => {
      await this.options.deadLetter(command, reason);
      await then?.();
    });
  }

  async retrying(what: string, work: () => Promise<unknown>): Promise<void> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await work();
        return;
      } catch (error) {
        if (this.isStopping()) throw error;
        await this.pause(attempt, error, what);
      }
    }
  }

  async pause(attempt: number, error: unknown, about: string): Promise<void> {
    const delayMs = Math.min(
      this.options.retryMaxMs,
      this.options.retryBaseMs * 2 ** Math.min(attempt, 20),
    );
    this.logger.warn({ err: error, about, attempt, delayMs }, 'retrying after a failure');
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (this.isStopping()) throw error;
  }
}

/** What a partial commit failed with, under the wrapper that says it was partial. */
export function causeOf(error: unknown): unknown {
  return error instanceof PartiallyCommittedDecision ? error.cause : error;
}
