import { fromJsonbValue, toJsonbText } from '@tollgate/persistence';
import { type Output, outputSubject, platformOfSessionId, type Subjects } from '@tollgate/protocol';
import { type DataSource, type EntityManager, QueryFailedError, type QueryRunner } from 'typeorm';
import { pendingCalls } from '../session/domain/approval-turn';
import type { JournaledEvent, SessionEvent } from '../session/domain/session-event';
import { SessionRecorder } from '../session/domain/session-recorder';
import { replay } from '../session/domain/session-state';
import { projectAlwaysGrants } from '../grants/always-grants.projection';
import { type Failpoint, noFailpoint } from './failpoint';

/** Advisory-lock class of "one command at a time per session" (second key: hash of the id). */
const SESSION_LOCK_CLASS = 0x7017;
const MAX_CONFLICT_RETRIES = 5;

export type DecisionResult =
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'decided'; readonly events: number; readonly outputs: number };

/**
 * A decision failed after at least one of its checkpoints committed: part of it (and the
 * command ledger row) is durable, the rest is lost. Retrying the command cannot help (it is a
 * duplicate now); the caller settles the turn left in flight instead.
 */
export class PartiallyCommittedDecision extends Error {
  override readonly name = 'PartiallyCommittedDecision';
  /** Whether the turn left in flight was settled afterwards; set by the caller. */
  turnSettled = false;

  constructor(
    readonly sessionId: string,
    options: { cause: unknown },
  ) {
    super(`a decision for ${sessionId} failed after a checkpoint committed`, options);
  }
}

/** Optimistic concurrency lost: another writer appended to the session first. */
export class JournalConflict extends Error {
  override readonly name = 'JournalConflict';
}

type Decision = (recorder: SessionRecorder) => Promise<void> | void;

/**
 * Runs one decision for one session. The session's advisory lock is held on one connection
 * for the whole decision, so commands of a session run one at a time even across the
 * decision's commits: everything up to a tool run is committed first (the recorder's
 * checkpoint), then the rest. Each commit appends the events, their outputs (outbox), the
 * projections and, with the first commit, the command ledger — together.
 */
export class SessionStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly subjects: Subjects,
    private readonly outboxChannel: string,
    readonly failpoint: Failpoint = noFailpoint,
    /** Injected so tests can fix the clock; every event of a decision shares one instant. */
    readonly now: () => string = () => new Date().toISOString(),
  ) {}

  async decide(
    sessionId: string,
    commandId: string | undefined,
    decision: Decision,
  ): Promise<DecisionResult> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`SELECT pg_advisory_lock($1, hashtext($2))`, [
        SESSION_LOCK_CLASS,
        sessionId,
      ]);
      try {
        for (let attempt = 1; ; attempt += 1) {
          const run = new DecisionRun(runner, sessionId, commandId, this);
          try {
            return await run.execute(decision);
          } catch (error) {
            // Only a writer without the lock (a standby mid-takeover) can get here. Retrying is
            // safe only while nothing of this decision was committed.
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
      } finally {
        await runner.query(`SELECT pg_advisory_unlock($1, hashtext($2))`, [
          SESSION_LOCK_CLASS,
          sessionId,
        ]);
      }
    } finally {
      await runner.release();
    }
  }

  /**
   * One decision over many sessions in one transaction, for recovery at scale: the sessions
   * are locked together (transaction-scoped, in a fixed order so two callers cannot
   * deadlock), loaded with one query and written with one statement per table. Only for
   * decisions that need no checkpoint (refreshing parked sessions runs no tool).
   */
  async decideMany(
    sessionIds: readonly string[],
    decision: (recorder: SessionRecorder) => Promise<void> | void,
  ): Promise<{ sessions: number; outputs: number }> {
    const ids = [...new Set(sessionIds)].sort();
    return this.dataSource.transaction(async (manager) => {
      await manager.query(
        `SELECT pg_advisory_xact_lock($1, hashtext(id)) FROM unnest($2::text[]) AS id ORDER BY id`,
        [SESSION_LOCK_CLASS, ids],
      );
      const rows: { session_id: string; seq: number; data: SessionEvent; occurred_at: Date }[] =
        await manager.query(
          `SELECT session_id, seq, data, occurred_at FROM session_events
           WHERE session_id = ANY($1::text[]) ORDER BY session_id, seq`,
          [ids],
        );
      const journals = new Map<string, JournaledEvent[]>(ids.map((id) => [id, []]));
      for (const r of rows) {
        journals.get(r.session_id)?.push({
          seq: r.seq,
          event: fromJsonbValue<SessionEvent>(r.data),
          occurredAt: new Date(r.occurred_at).toISOString(),
        });
      }
      const now = this.now();
      const recorders: SessionRecorder[] = [];
      for (const [id, journal] of journals) {
        const recorder = new SessionRecorder(replay(id, journal), now, async () => {
          throw new Error('decideMany cannot checkpoint: use decide for decisions that run tools');
        });
        await decision(recorder);
        if (recorder.recorded.length > 0 || recorder.unjournaledOutputs.length > 0)
          recorders.push(recorder);
      }
      const events = recorders.flatMap((r) =>
        r.recorded.map((e) => ({ ...e, sessionId: r.current.sessionId })),
      );
      const outputs = recorders.flatMap((r) => [
        ...r.recorded.flatMap((e) => e.outputs),
        ...r.unjournaledOutputs,
      ]);
      if (events.length > 0) {
        await this.append(manager, events);
        await this.project(manager, recorders);
      }
      if (outputs.length > 0) {
        await this.enqueue(manager, outputs);
        await manager.query(`SELECT pg_notify($1, '')`, [this.outboxChannel]);
      }
      return { sessions: recorders.length, outputs: outputs.length };
    });
  }

  /** Sessions a recovery must look at: parked ones, and ones that died mid-turn. */
  async sessionsToRecover(): Promise<{ parked: string[]; inFlight: string[] }> {
    const parked: { session_id: string }[] = await this.dataSource.query(
      `SELECT DISTINCT session_id FROM pending_approvals ORDER BY session_id`,
    );
    const inFlight: { session_id: string }[] = await this.dataSource.query(
      `SELECT session_id FROM sessions_in_flight ORDER BY session_id`,
    );
    return { parked: parked.map((r) => r.session_id), inFlight: inFlight.map((r) => r.session_id) };
  }

  /** @internal used by DecisionRun */
  async load(manager: EntityManager, sessionId: string): Promise<JournaledEvent[]> {
    const rows: { seq: number; data: SessionEvent; occurred_at: Date }[] = await manager.query(
      `SELECT seq, data, occurred_at FROM session_events WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    );
    return rows.map((r) => ({
      seq: r.seq,
      event: fromJsonbValue<SessionEvent>(r.data),
      occurredAt: new Date(r.occurred_at).toISOString(),
    }));
  }

  /** @internal Appends what the recorder holds beyond `from`, with outputs and projections. */
  async persist(
    manager: EntityManager,
    recorder: SessionRecorder,
    from: { events: number; unjournaled: number },
  ): Promise<number> {
    const sessionId = recorder.current.sessionId;
    const events = recorder.recorded.slice(from.events);
    const outputs = [
      ...events.flatMap((r) => r.outputs),
      ...recorder.unjournaledOutputs.slice(from.unjournaled),
    ];
    if (events.length > 0) {
      await this.append(
        manager,
        events.map((e) => ({ ...e, sessionId })),
      );
      await this.project(manager, [recorder]);
      await projectAlwaysGrants(manager, recorder.current, events);
    }
    if (outputs.length > 0) {
      await this.enqueue(manager, outputs);
      await manager.query(`SELECT pg_notify($1, '')`, [this.outboxChannel]);
    }
    return outputs.length;
  }

  private async append(
    manager: EntityManager,
    events: readonly (JournaledEvent & { sessionId: string })[],
  ): Promise<void> {
    try {
      await manager.query(
        `INSERT INTO session_events (session_id, seq, type, data, occurred_at)
         SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::jsonb[], $5::timestamptz[])`,
        [
          events.map((e) => e.sessionId),
          events.map((e) => e.seq),
          events.map((e) => e.event.type),
          // Chat text and tool results may hold U+0000 or lone surrogates: see toJsonbText.
          events.map((e) => toJsonbText(e.event)),
          events.map((e) => e.occurredAt),
        ],
      );
    } catch (error) {
      if (
        error instanceof QueryFailedError &&
        (error.driverError as { code?: string }).code === '23505'
      ) {
        throw new JournalConflict('a session was appended to concurrently');
      }
      throw error;
    }
  }

  /** The pending-approvals and in-flight projections of the sessions' current states. */
  private async project(
    manager: EntityManager,
    recorders: readonly SessionRecorder[],
  ): Promise<void> {
    const ids = recorders.map((r) => r.current.sessionId);
    const pending = recorders.flatMap((r) =>
      pendingCalls(r.current.turn).map((p) => ({ sessionId: r.current.sessionId, ...p })),
    );
    await manager.query(`DELETE FROM pending_approvals WHERE session_id = ANY($1::text[])`, [ids]);
    if (pending.length > 0) {
      await manager.query(
        `INSERT INTO pending_approvals (session_id, call_id, requested_seq)
         SELECT * FROM unnest($1::text[], $2::text[], $3::int[])`,
        [
          pending.map((p) => p.sessionId),
          pending.map((p) => p.callId),
          pending.map((p) => p.requestedSeq),
        ],
      );
    }
    const inFlight = recorders
      .filter((r) => r.current.turn.phase === 'Running' || r.current.turn.phase === 'Redriving')
      .map((r) => r.current.sessionId);
    await manager.query(
      `DELETE FROM sessions_in_flight WHERE session_id = ANY($1::text[]) AND NOT session_id = ANY($2::text[])`,
      [ids, inFlight],
    );
    if (inFlight.length > 0) {
      await manager.query(
        `INSERT INTO sessions_in_flight (session_id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`,
        [inFlight],
      );
    }
  }

  private async enqueue(manager: EntityManager, outputs: readonly Output[]): Promise<void> {
    await manager.query(
      `INSERT INTO outbox (id, session_id, subject, payload)
       SELECT o.id, o.session_id, o.subject, o.payload
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
         WITH ORDINALITY AS o(id, session_id, subject, payload, n)
       ORDER BY o.n
       ON CONFLICT (id) DO NOTHING`,
      [
        outputs.map((o) => o.id),
        outputs.map((o) => o.sessionId),
        outputs.map((o) => outputSubject(this.subjects, o)),
        outputs.map((o) => JSON.stringify(o)),
      ],
    );
  }
}

/** One attempt at a decision on the locked connection, committing at each checkpoint. */
class DecisionRun {
  committedAny = false;
  private persisted = { events: 0, unjournaled: 0 };
  private outputs = 0;
  private ledgerWritten = false;
  /** Command ids are unique per platform only; the session id names it (`<platform>-…`). */
  private readonly platform: string;

  constructor(
    private readonly runner: QueryRunner,
    private readonly sessionId: string,
    private readonly commandId: string | undefined,
    private readonly store: SessionStore,
  ) {
    this.platform = platformOfSessionId(sessionId) ?? sessionId;
  }

  async execute(decision: Decision): Promise<DecisionResult> {
    await this.runner.startTransaction();
    try {
      if (this.commandId !== undefined) {
        const seen = await this.runner.manager.query<unknown[]>(
          `SELECT 1 FROM processed_commands WHERE platform = $1 AND command_id = $2`,
          [this.platform, this.commandId],
        );
        if (seen.length > 0) {
          await this.runner.commitTransaction();
          return { kind: 'duplicate' };
        }
      }
      const events = await this.store.load(this.runner.manager, this.sessionId);
      const recorder = new SessionRecorder(
        replay(this.sessionId, events),
        this.store.now(),
        async (r, point) => {
          await this.commit(r, { reopen: true });
          this.store.failpoint(point);
        },
      );
      await decision(recorder);
      await this.commit(recorder, { reopen: false });
      return { kind: 'decided', events: recorder.recorded.length, outputs: this.outputs };
    } catch (error) {
      if (this.runner.isTransactionActive) await this.runner.rollbackTransaction();
      throw error;
    }
  }

  private async commit(recorder: SessionRecorder, { reopen }: { reopen: boolean }): Promise<void> {
    // Checkpoints are named only for failpoints; every commit does the same work.
    const manager = this.runner.manager;
    this.outputs += await this.store.persist(manager, recorder, this.persisted);
    this.persisted = {
      events: recorder.recorded.length,
      unjournaled: recorder.unjournaledOutputs.length,
    };
    if (this.commandId !== undefined && !this.ledgerWritten) {
      // With the first commit: a redelivery after a crash mid-decision is a duplicate, and
      // recovery, not the command, settles the turn left in flight.
      await manager.query(
        `INSERT INTO processed_commands (platform, command_id, session_id) VALUES ($1, $2, $3)`,
        [this.platform, this.commandId, this.sessionId],
      );
      this.ledgerWritten = true;
    }
    await this.runner.commitTransaction();
    this.committedAny = true;
    if (reopen) await this.runner.startTransaction();
  }
}
