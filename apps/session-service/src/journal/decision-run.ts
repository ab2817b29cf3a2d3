import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { SessionRecorder } from '../session/domain/session-recorder';
import type { SessionState } from '@tollgate/session-read-model';
import { recordProcessed } from './command-ledger';
import type { DecisionResult } from './decision-errors';
import { historySourceOf, type Queryable } from './event-journal';
import { claimGrantUse } from '../grants/grant-claim';
import type { ConnectionGate } from './connection-gate';
import type { Failpoint } from './failpoint';
import { type InboxEntry, settleQueued } from './session-inbox';
import { lockSession } from './session-lock';
import { openSession } from './session-snapshot';
import type { SessionWriter } from './session-writer';

export type Decision = (recorder: SessionRecorder) => Promise<void> | void;

export interface DecideOptions {
  /** The command came from the inbox: its row goes with the decision's first commit. */
  readonly inboxPosition?: string;
  /** Called once the command is settled in the database (first commit, or a duplicate). */
  readonly onDurable?: () => void;
  /** The call a click names: whether an earlier batch's call was answered is loaded for it. */
  readonly callId?: string;
  /** Commands the decision queued for related sessions (sub-agents), once committed. */
  readonly onDispatched?: (entries: readonly InboxEntry[]) => void;
}

/** What a decision run needs from the store that starts it. */
export interface DecisionRunContext {
  readonly dataSource: DataSource;
  /** Bounds the connections decisions hold at once (see ConnectionGate). */
  readonly gate: ConnectionGate;
  readonly writer: SessionWriter;
  readonly failpoint: Failpoint;
  readonly now: () => string;
  /** How many latest turns a model call is shown (MODEL_HISTORY_TURNS). */
  readonly historyTurns: number;
}

/**
 * One attempt at a decision. The first transaction checks the ledger, loads the session and
 * runs the decision up to its first checkpoint; every checkpoint commits and hands the
 * connection back, and the next commit opens a new transaction under the session's lock.
 */
export class DecisionRun {
  committedAny = false;
  private runner?: QueryRunner;
  /** Gives back the gate's slot the open transaction holds. */
  private releaseSlot?: () => void;
  private persisted = { events: 0, unjournaled: 0, dispatched: 0 };
  /** The state as of the last commit (or the load), for the projections' diff. */
  private committedState?: SessionState;
  private outputs = 0;
  private settled = false;

  constructor(
    private readonly context: DecisionRunContext,
    private readonly sessionId: string,
    private readonly commandId: string | undefined,
    private readonly options: DecideOptions,
  ) {}

  async execute(decision: Decision): Promise<DecisionResult> {
    try {
      const manager = await this.begin();
      const opened = await openSession(
        manager,
        this.sessionId,
        this.commandId,
        this.options.callId,
      );
      if (opened.kind !== 'loaded') {
        await settleQueued(manager, this.options.inboxPosition);
        await this.finish();
        return { kind: opened.kind };
      }
      this.committedState = { ...opened.state, settledCalls: opened.settledStored };
      const recorder = new SessionRecorder(
        opened.state,
        this.context.now(),
        async (r, point) => {
          await this.commit(r);
          this.context.failpoint(point);
          r.clockAt(this.context.now());
        },
        historySourceOf((read) => this.read(read), this.sessionId, this.context.historyTurns),
        // G3: the use is taken in the transaction the next commit ends, with the call's events.
        async (claim) => claimGrantUse(await this.begin(), claim),
        (read) => this.read(read),
      );
      await decision(recorder);
      await this.commit(recorder);
      return { kind: 'decided', events: recorder.recorded.length, outputs: this.outputs };
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  /**
   * A read while this run holds its transaction goes through that connection: from a second
   * one, as many runs as the gate admits would each wait for one more (a restart redriving
   * more sessions than that deadlocked into timeouts, D2). Otherwise it takes a gated slot.
   */
  private async read<T>(read: (connection: Queryable) => Promise<T>): Promise<T> {
    if (this.runner) return read(this.runner.manager);
    return this.context.gate.run(() => read(this.context.dataSource));
  }

  private async begin(): Promise<EntityManager> {
    if (this.runner) return this.runner.manager;
    const release = await this.context.gate.acquire();
    const runner = this.context.dataSource.createQueryRunner();
    this.runner = runner;
    this.releaseSlot = release;
    await runner.connect();
    await runner.startTransaction();
    await lockSession(runner.manager, this.sessionId);
    return runner.manager;
  }

  private async commit(recorder: SessionRecorder): Promise<void> {
    const nothingNew =
      recorder.recorded.length === this.persisted.events &&
      recorder.unjournaledOutputs.length === this.persisted.unjournaled &&
      recorder.dispatched.length === this.persisted.dispatched &&
      this.settled;
    if (nothingNew && !this.runner) return;
    const manager = await this.begin();
    const persisted = await this.context.writer.persist(
      manager,
      recorder,
      this.persisted,
      this.committedState ?? recorder.current,
    );
    this.outputs += persisted.outputs;
    this.committedState = recorder.current;
    this.persisted = {
      events: recorder.recorded.length,
      unjournaled: recorder.unjournaledOutputs.length,
      dispatched: recorder.dispatched.length,
    };
    if (!this.settled) {
      if (this.commandId !== undefined) {
        await recordProcessed(manager, this.sessionId, this.commandId);
      }
      await settleQueued(manager, this.options.inboxPosition);
    }
    await this.finish();
    this.committedAny = true;
    if (!this.settled) {
      this.settled = true;
      this.options.onDurable?.();
    }
    if (persisted.dispatched.length > 0) this.options.onDispatched?.(persisted.dispatched);
  }

  private async finish(): Promise<void> {
    const runner = this.runner;
    if (!runner) return;
    this.runner = undefined;
    try {
      await runner.commitTransaction();
    } finally {
      await this.release(runner);
    }
  }

  private async abort(): Promise<void> {
    const runner = this.runner;
    if (!runner) return;
    this.runner = undefined;
    try {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
    } finally {
      await this.release(runner);
    }
  }

  private async release(runner: QueryRunner): Promise<void> {
    const releaseSlot = this.releaseSlot;
    this.releaseSlot = undefined;
    try {
      await runner.release();
    } finally {
      releaseSlot?.();
    }
  }
}
