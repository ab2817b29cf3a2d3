import type { Subjects } from '@tollgate/protocol';
import type { DataSource, EntityManager } from 'typeorm';
import { OutboxWriter } from '../outbox/outbox-writer';
import { DEFAULT_HISTORY_TURNS, type HistorySource } from '../session/domain/provider-history';
import type { SessionCommand } from '../session/domain/sub-agent';
import {
  type DecisionResult,
  JournalConflict,
  PartiallyCommittedDecision,
} from './decision-errors';
import { ConnectionGate } from './connection-gate';
import { type DecideOptions, type Decision, DecisionRun } from './decision-run';
import { historySourceOf } from './event-journal';
import { type Failpoint, noFailpoint } from './failpoint';
import { RecoveryStore } from './recovery-store';
import { type InboxEntry, SessionInbox } from './session-inbox';
import { SessionQuarantine } from './session-quarantine';
import { type OpenedSession, openSession } from './session-snapshot';
import { DEFAULT_SESSION_GRANT_TTL_MS, SessionWriter } from './session-writer';

export {
  type DecisionResult,
  JournalConflict,
  PartiallyCommittedDecision,
  SessionUnreplayable,
} from './decision-errors';
export type { DecideOptions } from './decision-run';
export type { InboxEntry } from './session-inbox';
export { STATE_FORMAT } from '@tollgate/session-read-model';
export { DEFAULT_SESSION_GRANT_TTL_MS } from './session-writer';

const MAX_CONFLICT_RETRIES = 5;

/** What a store may be given beyond its connection and subjects; each has a default. */
export interface SessionStoreOptions {
  /** Crash scenarios: called after each checkpoint commits (TOLLGATE_FAILPOINT). */
  readonly failpoint?: Failpoint;
  /** Injected so tests can fix the clock; every event of a decision shares one instant. */
  readonly now?: () => string;
  /** X14: how long an "Allow in this chat" lasts (TOLLGATE_SESSION_GRANT_TTL). */
  readonly sessionGrantTtlMs?: number;
  /** How many latest turns a model call is shown (MODEL_HISTORY_TURNS). */
  readonly historyTurns?: number;
}

/**
 * The session service's store, one entry per concern: decisions (DecisionRun, a series of short
 * transactions per decision), the inbox, quarantine and recovery. Each commit appends the
 * events, their outputs (outbox), the projections, the session's state row and, with the first
 * commit, the command ledger — together, under a transaction-scoped lock on the session. That
 * commands of one session are decided one at a time, in order, is the scheduler's job; the lock
 * and the journal's (session_id, seq) key keep any other writer (a standby mid-takeover) from
 * interleaving.
 */
export class SessionStore {
  readonly failpoint: Failpoint;
  readonly now: () => string;
  private readonly historyTurns: number;
  private readonly writer: SessionWriter;
  private readonly inboxTable: SessionInbox;
  private readonly quarantines: SessionQuarantine;
  private readonly recovery: RecoveryStore;
  private readonly gate: ConnectionGate;

  constructor(
    /** @internal */
    readonly dataSource: DataSource,
    subjects: Subjects,
    outboxChannel: string,
    options: SessionStoreOptions = {},
  ) {
    this.failpoint = options.failpoint ?? noFailpoint;
    const now = options.now ?? (() => new Date().toISOString());
    this.now = now;
    this.historyTurns = options.historyTurns ?? DEFAULT_HISTORY_TURNS;
    const outbox = new OutboxWriter(subjects, outboxChannel);
    this.writer = new SessionWriter(
      outbox,
      options.sessionGrantTtlMs ?? DEFAULT_SESSION_GRANT_TTL_MS,
    );
    this.inboxTable = new SessionInbox(dataSource);
    this.quarantines = new SessionQuarantine(dataSource, outbox, now);
    this.recovery = new RecoveryStore(dataSource, outbox, now);
    this.gate = ConnectionGate.forPool(dataSource);
  }

  async decide(
    sessionId: string,
    commandId: string | undefined,
    decision: Decision,
    options: DecideOptions = {},
  ): Promise<DecisionResult> {
    const context = {
      dataSource: this.dataSource,
      gate: this.gate,
      writer: this.writer,
      failpoint: this.failpoint,
      now: this.now,
      historyTurns: this.historyTurns,
    };
    for (let attempt = 1; ; attempt += 1) {
      const run = new DecisionRun(context, sessionId, commandId, options);
      try {
        return await run.execute(decision);
      } catch (error) {
        // Only a writer outside the scheduler (a standby mid-takeover) can get here.
        // Retrying is safe only while nothing of this decision was committed.
        if (
          error instanceof JournalConflict &&
          !run.committedAny &&
          attempt < MAX_CONFLICT_RETRIES
        ) {
          continue;
        }
        if (run.committedAny) throw new PartiallyCommittedDecision(sessionId, { cause: error });
        throw error;
      }
    }
  }

  /** See RecoveryStore.decideMany: parked sessions refreshed in bulk. */
  decideMany(sessionIds: readonly string[], decision: Decision) {
    return this.recovery.decideMany(sessionIds, decision);
  }

  /** Sessions a recovery must look at: parked ones, ones that died mid-turn, queued commands. */
  sessionsToRecover(): Promise<{ parked: string[]; inFlight: string[] }> {
    return this.recovery.sessionsToRecover();
  }

  /** Keeps a command its busy session will decide later (see SessionInbox.queue). */
  queue(
    command: SessionCommand,
  ): Promise<{ kind: 'queued'; position: string } | { kind: 'duplicate' }> {
    return this.inboxTable.queue(command);
  }

  /** Every queued command, oldest first (what a new process must still decide). */
  inbox(): Promise<InboxEntry[]> {
    return this.inboxTable.entries();
  }

  /** Drops a queued command that can never be decided (it was dead-lettered instead). */
  dropQueued(position: string): Promise<void> {
    return this.inboxTable.drop(position);
  }

  /** S18: sets a session aside (see SessionQuarantine). */
  quarantine(
    sessionId: string,
    reason: string,
  ): Promise<{ expired: string[]; dispatched: InboxEntry[] }> {
    return this.quarantines.quarantine(sessionId, reason);
  }

  /** @internal The session's provider history through `throughSeq`, outside any transaction. */
  historySource(sessionId: string): HistorySource {
    return historySourceOf((read) => read(this.dataSource), sessionId, this.historyTurns);
  }

  /** @internal See openSession. */
  open(
    manager: EntityManager,
    sessionId: string,
    commandId: string | undefined,
    callId?: string,
  ): Promise<OpenedSession> {
    return openSession(manager, sessionId, commandId, callId);
  }
}
