import { type Output, outputSubject, type Subjects } from '@tollgate/protocol';
import { type DataSource, type EntityManager, QueryFailedError } from 'typeorm';
import { pendingCalls } from '../session/domain/approval-turn';
import type { JournaledEvent, SessionEvent } from '../session/domain/session-event';
import { SessionRecorder } from '../session/domain/session-recorder';
import { replay } from '../session/domain/session-state';

/** Advisory-lock class of "one command at a time per session" (second key: hash of the id). */
const SESSION_LOCK_CLASS = 0x7017;
const MAX_CONFLICT_RETRIES = 5;

export type DecisionResult =
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'decided'; readonly events: number; readonly outputs: number };

/** Optimistic concurrency lost: another writer appended to the session first. */
class JournalConflict extends Error {}

/**
 * Runs one decision for one session in one transaction: lock the session, skip a command
 * already processed, rebuild the state from the journal, decide, then append the events,
 * their outputs (outbox), the pending-approvals projection and the command ledger together.
 */
export class SessionStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly subjects: Subjects,
    private readonly outboxChannel: string,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {}

  async decide(
    sessionId: string,
    commandId: string | undefined,
    decision: (recorder: SessionRecorder) => Promise<void> | void,
  ): Promise<DecisionResult> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.dataSource.transaction((manager) =>
          this.decideInTransaction(manager, sessionId, commandId, decision),
        );
      } catch (error) {
        // Only a standby taking over mid-write can get here; the lock normally prevents it.
        if (error instanceof JournalConflict && attempt < MAX_CONFLICT_RETRIES) continue;
        throw error;
      }
    }
  }

  /** Sessions the projection says are parked: the ones a recovery must refresh. */
  async parkedSessionIds(): Promise<string[]> {
    const rows: { session_id: string }[] = await this.dataSource.query(
      `SELECT DISTINCT session_id FROM pending_approvals ORDER BY session_id`,
    );
    return rows.map((r) => r.session_id);
  }

  private async decideInTransaction(
    manager: EntityManager,
    sessionId: string,
    commandId: string | undefined,
    decision: (recorder: SessionRecorder) => Promise<void> | void,
  ): Promise<DecisionResult> {
    await manager.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [
      SESSION_LOCK_CLASS,
      sessionId,
    ]);
    if (commandId !== undefined) {
      const seen: unknown[] = await manager.query(
        `SELECT 1 FROM processed_commands WHERE command_id = $1`,
        [commandId],
      );
      if (seen.length > 0) return { kind: 'duplicate' };
    }
    const recorder = new SessionRecorder(
      replay(sessionId, await this.load(manager, sessionId)),
      this.now(),
    );
    await decision(recorder);

    const outputs = [
      ...recorder.recorded.flatMap((r) => r.outputs),
      ...recorder.unjournaledOutputs,
    ];
    if (recorder.recorded.length > 0) {
      await this.append(manager, sessionId, recorder.recorded);
      await this.project(manager, sessionId, recorder);
    }
    if (outputs.length > 0) {
      await this.enqueue(manager, outputs);
      await manager.query(`SELECT pg_notify($1, '')`, [this.outboxChannel]);
    }
    if (commandId !== undefined) {
      await manager.query(
        `INSERT INTO processed_commands (command_id, session_id) VALUES ($1, $2)`,
        [commandId, sessionId],
      );
    }
    return { kind: 'decided', events: recorder.recorded.length, outputs: outputs.length };
  }

  private async load(manager: EntityManager, sessionId: string): Promise<JournaledEvent[]> {
    const rows: { seq: number; data: SessionEvent; occurred_at: Date }[] = await manager.query(
      `SELECT seq, data, occurred_at FROM session_events WHERE session_id = $1 ORDER BY seq`,
      [sessionId],
    );
    return rows.map((r) => ({
      seq: r.seq,
      event: r.data,
      occurredAt: new Date(r.occurred_at).toISOString(),
    }));
  }

  private async append(
    manager: EntityManager,
    sessionId: string,
    events: readonly JournaledEvent[],
  ): Promise<void> {
    try {
      await manager.query(
        `INSERT INTO session_events (session_id, seq, type, data, occurred_at)
         SELECT $1, e.seq, e.type, e.data, e.occurred_at
         FROM unnest($2::int[], $3::text[], $4::jsonb[], $5::timestamptz[])
           AS e(seq, type, data, occurred_at)`,
        [
          sessionId,
          events.map((e) => e.seq),
          events.map((e) => e.event.type),
          events.map((e) => JSON.stringify(e.event)),
          events.map((e) => e.occurredAt),
        ],
      );
    } catch (error) {
      if (
        error instanceof QueryFailedError &&
        (error.driverError as { code?: string }).code === '23505'
      ) {
        throw new JournalConflict(`session ${sessionId} was appended to concurrently`);
      }
      throw error;
    }
  }

  private async project(
    manager: EntityManager,
    sessionId: string,
    recorder: SessionRecorder,
  ): Promise<void> {
    const pending = pendingCalls(recorder.current.turn);
    await manager.query(`DELETE FROM pending_approvals WHERE session_id = $1`, [sessionId]);
    if (pending.length === 0) return;
    await manager.query(
      `INSERT INTO pending_approvals (session_id, call_id, requested_seq)
       SELECT $1, p.call_id, p.seq FROM unnest($2::text[], $3::int[]) AS p(call_id, seq)`,
      [sessionId, pending.map((p) => p.callId), pending.map((p) => p.requestedSeq)],
    );
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
