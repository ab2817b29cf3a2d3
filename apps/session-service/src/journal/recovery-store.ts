import type { DataSource, EntityManager } from 'typeorm';
import type { OutboxWriter } from '../outbox/outbox-writer';
import {
  evolve,
  initialSessionState,
  journaled,
  type JournaledEvent,
  type SessionEvent,
} from '@tollgate/session-read-model';
import { SessionRecorder } from '../session/domain/session-recorder';
import type { Decision } from './decision-run';
import { appendEvents } from './event-journal';
import { lockSessions } from './session-lock';
import { projectSessions } from './session-projections';
import { saveStates, stateRows } from './session-snapshot';

/** What a new process reads and writes to recover the sessions the last one left. */
export class RecoveryStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly now: () => string,
  ) {}

  /** Sessions a recovery must look at: parked ones, ones that died mid-turn, queued commands. */
  async sessionsToRecover(): Promise<{ parked: string[]; inFlight: string[] }> {
    const parked: { session_id: string }[] = await this.dataSource.query(
      `SELECT DISTINCT p.session_id FROM pending_approvals p
       WHERE NOT EXISTS (SELECT 1 FROM quarantined_sessions q WHERE q.session_id = p.session_id)
       ORDER BY p.session_id`,
    );
    const inFlight: { session_id: string }[] = await this.dataSource.query(
      `SELECT f.session_id FROM sessions_in_flight f
       WHERE NOT EXISTS (SELECT 1 FROM quarantined_sessions q WHERE q.session_id = f.session_id)
       ORDER BY f.session_id`,
    );
    return { parked: parked.map((r) => r.session_id), inFlight: inFlight.map((r) => r.session_id) };
  }

  /**
   * One decision over many sessions in one transaction, for recovery at scale: the sessions
   * are locked together (in a fixed order so two callers cannot deadlock), loaded with two
   * queries and written with one statement per table. Only for decisions that need no
   * checkpoint (refreshing parked sessions runs no tool). A session whose replay or decision
   * throws is left out and reported, so one poisoned journal cannot hold the others back.
   */
  async decideMany(
    sessionIds: readonly string[],
    decision: Decision,
  ): Promise<{
    sessions: number;
    outputs: number;
    failed: { sessionId: string; error: unknown }[];
  }> {
    const ids = [...new Set(sessionIds)].sort();
    return this.dataSource.transaction(async (manager) => {
      await lockSessions(manager, ids);
      const quarantined = new Set(
        (
          await manager.query<{ session_id: string }[]>(
            `SELECT session_id FROM quarantined_sessions WHERE session_id = ANY($1::text[])`,
            [ids],
          )
        ).map((r) => r.session_id),
      );
      const journals = await this.journals(manager, ids);
      const now = this.now();
      const recorders: SessionRecorder[] = [];
      const failed: { sessionId: string; error: unknown }[] = [];
      for (const [id, { base, tail }] of journals) {
        if (quarantined.has(id)) continue;
        try {
          const state = tail.reduce(evolve, base ?? initialSessionState(id));
          const recorder = new SessionRecorder(state, now, async () => {
            throw new Error(
              'decideMany cannot checkpoint: use decide for decisions that run tools',
            );
          });
          await decision(recorder);
          if (recorder.recorded.length > 0 || recorder.unjournaledOutputs.length > 0)
            recorders.push(recorder);
        } catch (error) {
          failed.push({ sessionId: id, error });
        }
      }
      const events = recorders.flatMap((r) =>
        r.recorded.map((e) => ({ ...e, sessionId: r.current.sessionId })),
      );
      const outputs = recorders.flatMap((r) => [
        ...r.recorded.flatMap((e) => e.outputs),
        ...r.unjournaledOutputs,
      ]);
      const decisions = recorders.flatMap((r) => r.recorded.flatMap((e) => e.decisions ?? []));
      if (events.length > 0) {
        await appendEvents(manager, events);
        await projectSessions(manager, recorders);
        // Rows carry no settled calls, so all a replayed session knows is written out here.
        await saveStates(
          manager,
          recorders.map((r) => ({ state: r.current, settledBefore: {} })),
        );
      }
      if (outputs.length > 0 || decisions.length > 0) {
        await this.outbox.enqueue(manager, outputs, decisions);
      }
      return { sessions: recorders.length, outputs: outputs.length, failed };
    });
  }

  /** Each session's state row and the events after it, in two queries for all of them. */
  private async journals(manager: EntityManager, ids: readonly string[]) {
    const bases = await stateRows(manager, ids);
    const tails = await manager.query<
      { session_id: string; seq: number; data: SessionEvent; occurred_at: Date }[]
    >(
      `SELECT e.session_id, e.seq, e.data, e.occurred_at
       FROM session_events e JOIN unnest($1::text[], $2::int[]) AS b(session_id, version)
         ON e.session_id = b.session_id AND e.seq > b.version
       ORDER BY e.session_id, e.seq`,
      [ids, ids.map((id) => bases.get(id)?.version ?? 0)],
    );
    const journals = new Map(
      ids.map((id) => [id, { base: bases.get(id), tail: [] as JournaledEvent[] }]),
    );
    for (const r of tails) journals.get(r.session_id)?.tail.push(journaled(r));
    return journals;
  }
}
