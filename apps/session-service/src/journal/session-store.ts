import { fromJsonbValue, toJsonbText } from '@tollgate/persistence';
import {
  type ApprovalDecided,
  approvalDecidedId,
  type Output,
  outputSubject,
  platformOfSessionId,
  PROTOCOL_VERSION,
  type Subjects,
} from '@tollgate/protocol';
import { type DataSource, type EntityManager, QueryFailedError, type QueryRunner } from 'typeorm';
import { HISTORY_EVENT_TYPES, type HistorySource } from '../session/domain/provider-history';
import type { JournaledEvent, SessionEvent } from '../session/domain/session-event';
import { type OutputDraft, SessionRecorder } from '../session/domain/session-recorder';
import {
  evolve,
  initialSessionState,
  pendingPrompts,
  type SessionState,
} from '../session/domain/session-state';
import { projectAlwaysGrants } from '../grants/always-grants.projection';
import { projectSessionGrants } from '../grants/session-grants.projection';
import { appendAuditFor } from '../audit/audit-append.hook';

/** An "Allow in this chat" lasts a day unless TOLLGATE_SESSION_GRANT_TTL says otherwise. */
export const DEFAULT_SESSION_GRANT_TTL_MS = 24 * 3_600_000;
import { type Failpoint, noFailpoint } from './failpoint';
import type { SessionCommand, SubAgentCommand, SubAgentParent } from '../session/domain/sub-agent';
import { subAgentResultId } from '../session/domain/sub-agent';
import { cancelPromptTimers, schedulePromptTimers } from './prompt-timer.repository';

/** Advisory-lock class of "one writer at a time per session" (second key: hash of the id). */
const SESSION_LOCK_CLASS = 0x7017;
const MAX_CONFLICT_RETRIES = 5;
/**
 * The shape of a `session_state` row. Bump it whenever SessionState changes: rows of another
 * format are ignored and the journal replayed, so a parked batch never depends on a cached
 * shape an older version wrote.
 */
export const STATE_FORMAT = 6;

export type DecisionResult =
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'quarantined' }
  | { readonly kind: 'decided'; readonly events: number; readonly outputs: number };

/**
 * A decision failed after at least one of its checkpoints committed: part of it (and the
 * command ledger row) is durable, the rest is lost. Retrying the command cannot help (it is a
 * duplicate now); the scheduler settles the turn left in flight instead.
 */
export class PartiallyCommittedDecision extends Error {
  override readonly name = 'PartiallyCommittedDecision';

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

/** The session's journal cannot be replayed by this version: it must be quarantined. */
export class SessionUnreplayable extends Error {
  override readonly name = 'SessionUnreplayable';

  constructor(
    readonly sessionId: string,
    cause: unknown,
  ) {
    super(
      `session ${sessionId} cannot be replayed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

type Decision = (recorder: SessionRecorder) => Promise<void> | void;

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

export interface InboxEntry {
  readonly position: string;
  readonly sessionId: string;
  readonly command: SessionCommand;
}

/**
 * Runs one decision for one session as a series of short transactions: everything decided
 * up to a checkpoint (a model call, a tool run) is committed, the connection goes back to the
 * pool, and the I/O runs holding nothing; its result is committed by the next transaction.
 * Each commit appends the events, their outputs (outbox), the projections, the session's
 * state row and, with the first commit, the command ledger — together, under a
 * transaction-scoped lock on the session. That commands of one session are decided one at a
 * time, in order, is the scheduler's job; the lock and the journal's (session_id, seq) key
 * keep any other writer (a standby mid-takeover) from interleaving.
 */
export class SessionStore {
  constructor(
    /** @internal */
    readonly dataSource: DataSource,
    private readonly subjects: Subjects,
    private readonly outboxChannel: string,
    readonly failpoint: Failpoint = noFailpoint,
    /** Injected so tests can fix the clock; every event of a decision shares one instant. */
    readonly now: () => string = () => new Date().toISOString(),
    /** X14: how long an "Allow in this chat" lasts (TOLLGATE_SESSION_GRANT_TTL). */
    readonly sessionGrantTtlMs: number = DEFAULT_SESSION_GRANT_TTL_MS,
  ) {}

  async decide(
    sessionId: string,
    commandId: string | undefined,
    decision: Decision,
    options: DecideOptions = {},
  ): Promise<DecisionResult> {
    for (let attempt = 1; ; attempt += 1) {
      const run = new DecisionRun(this, sessionId, commandId, options);
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
      await manager.query(
        `SELECT pg_advisory_xact_lock($1, hashtext(id)) FROM unnest($2::text[]) AS id ORDER BY id`,
        [SESSION_LOCK_CLASS, ids],
      );
      const quarantined = new Set(
        (
          await manager.query<{ session_id: string }[]>(
            `SELECT session_id FROM quarantined_sessions WHERE session_id = ANY($1::text[])`,
            [ids],
          )
        ).map((r) => r.session_id),
      );
      const bases = await this.stateRows(manager, ids);
      const tails = await manager.query<
        { session_id: string; seq: number; data: SessionEvent; occurred_at: Date }[]
      >(
        `SELECT e.session_id, e.seq, e.data, e.occurred_at
         FROM session_events e JOIN unnest($1::text[], $2::int[]) AS b(session_id, version)
           ON e.session_id = b.session_id AND e.seq > b.version
         ORDER BY e.session_id, e.seq`,
        [ids, ids.map((id) => bases.get(id)?.version ?? 0)],
      );
      const journals = new Map<string, JournaledEvent[]>(ids.map((id) => [id, []]));
      for (const r of tails) journals.get(r.session_id)?.push(journaled(r));
      const now = this.now();
      const recorders: SessionRecorder[] = [];
      const failed: { sessionId: string; error: unknown }[] = [];
      for (const [id, tail] of journals) {
        if (quarantined.has(id)) continue;
        try {
          const state = tail.reduce(evolve, bases.get(id) ?? initialSessionState(id));
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
        await this.append(manager, events);
        await this.project(manager, recorders);
        // Rows carry no settled calls, so all a replayed session knows is written out here.
        await this.saveStates(
          manager,
          recorders.map((r) => ({ state: r.current, settledBefore: {} })),
        );
      }
      if (outputs.length > 0 || decisions.length > 0) {
        await this.enqueue(manager, outputs, decisions);
      }
      return { sessions: recorders.length, outputs: outputs.length, failed };
    });
  }

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
   * Keeps a command its busy session will decide later. Its message can then be acked: the
   * row survives a crash, and the command ledger or the row's key turn a redelivery away.
   */
  async queue(
    command: SessionCommand,
  ): Promise<{ kind: 'queued'; position: string } | { kind: 'duplicate' }> {
    return this.dataSource.transaction(async (manager) => {
      const seen = await manager.query<unknown[]>(
        `SELECT 1 FROM processed_commands WHERE platform = $1 AND command_id = $2`,
        [platformOf(command.sessionId), command.id],
      );
      if (seen.length > 0) return { kind: 'duplicate' };
      const [inserted] = await manager.query<{ position: string }[]>(
        `INSERT INTO session_inbox (session_id, command_id, command) VALUES ($1, $2, $3)
         ON CONFLICT (session_id, command_id) DO NOTHING RETURNING position`,
        // Chat text may hold U+0000 or lone surrogates: see toJsonbText.
        [command.sessionId, command.id, toJsonbText(command)],
      );
      return inserted ? { kind: 'queued', position: inserted.position } : { kind: 'duplicate' };
    });
  }

  /** Every queued command, oldest first (what a new process must still decide). */
  async inbox(): Promise<InboxEntry[]> {
    const rows = await this.dataSource.query<
      { position: string; session_id: string; command: SessionCommand }[]
    >(
      `SELECT i.position, i.session_id, i.command FROM session_inbox i
       WHERE NOT EXISTS (SELECT 1 FROM quarantined_sessions q WHERE q.session_id = i.session_id)
       ORDER BY i.position`,
    );
    return rows.map((r) => ({
      position: r.position,
      sessionId: r.session_id,
      command: fromJsonbValue<SessionCommand>(r.command),
    }));
  }

  /** Drops a queued command that can never be decided (it was dead-lettered instead). */
  async dropQueued(position: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM session_inbox WHERE position = $1`, [position]);
  }

  /**
   * S18: a session that cannot be replayed or recovered is set aside so the others go on. Its
   * open prompts are expired with a notice (appended without replaying: the outputs' seq is
   * past every seq the session used), and it takes no more commands.
   */
  async quarantine(
    sessionId: string,
    reason: string,
  ): Promise<{ expired: string[]; dispatched: InboxEntry[] }> {
    return this.dataSource.transaction(async (manager) => {
      await this.lock(manager, sessionId);
      const already = await manager.query<unknown[]>(
        `SELECT 1 FROM quarantined_sessions WHERE session_id = $1`,
        [sessionId],
      );
      if (already.length > 0) return { expired: [], dispatched: [] };
      const pending = (
        await manager.query<{ call_id: string }[]>(
          `SELECT call_id FROM pending_approvals WHERE session_id = $1 ORDER BY requested_seq`,
          [sessionId],
        )
      ).map((r) => r.call_id);
      const [last] = await manager.query<{ seq: number | null; started: unknown }[]>(
        `SELECT (SELECT max(seq) FROM session_events WHERE session_id = $1) AS seq,
                (SELECT data FROM session_events
                 WHERE session_id = $1 AND type = 'SessionStarted' ORDER BY seq LIMIT 1) AS started`,
        [sessionId],
      );
      const started = last?.started
        ? fromJsonbValue<{
            conversation?: unknown;
            parent?: SubAgentParent;
            apiClientId?: string;
          }>(last.started)
        : {};
      const conversation = started.conversation;
      let dispatched: InboxEntry[] = [];
      if (last?.seq && isConversation(conversation)) {
        const base: SessionState = {
          ...initialSessionState(sessionId),
          version: last.seq,
          conversation,
          // A sub-agent's notice and expiries name it, in its parent's conversation.
          ...(started.parent ? { parent: started.parent } : {}),
        };
        const recorder = new SessionRecorder(base, this.now());
        const reasonText = reason.slice(0, 500);
        const { apiClientId } = started;
        // A2: each API approval that can no longer be answered ends as expired for its agent.
        const decisions = (apiClientId === undefined ? [] : pending).map(
          (approvalId): ApprovalDecided => ({
            type: 'ApprovalDecided',
            v: PROTOCOL_VERSION,
            id: approvalDecidedId(approvalId),
            occurredAt: recorder.clock,
            sessionId,
            approvalId,
            clientId: apiClientId ?? '',
            status: 'expired',
            decision: null,
            decidedAt: recorder.clock,
          }),
        );
        recorder.record(
          { type: 'SessionQuarantined', reason: reasonText, expiredCallIds: pending },
          [
            ...pending.map((callId): OutputDraft => ({
              type: 'ToolInteractionUpdate',
              callId,
              status: 'Expired',
              reason: 'expired: this conversation could not be restored',
            })),
            {
              type: 'TextOutput',
              role: 'notice',
              text: 'This conversation could not be restored after a restart; its open requests have expired and nothing was run. Please start a new conversation.',
            },
          ],
        );
        await this.append(
          manager,
          recorder.recorded.map((e) => ({ ...e, sessionId })),
        );
        const outputs = recorder.recorded.flatMap((e) => e.outputs);
        await this.enqueue(manager, outputs, decisions);
        if (started.parent) {
          // The parent's `delegate` call fails with a reason its model sees (S21).
          dispatched = await this.dispatch(manager, [
            {
              type: 'SubAgentResult',
              id: subAgentResultId(sessionId, last.seq),
              sessionId: started.parent.sessionId,
              callId: started.parent.callId,
              childSessionId: sessionId,
              outcome: 'failed',
              result: 'its conversation could not be restored; its requests expired',
            },
          ]);
        }
      }
      // Queued commands go too: the notice tells the chat, and the log names the session.
      for (const table of [
        'pending_approvals',
        'sessions_in_flight',
        'session_state',
        'session_inbox',
      ]) {
        await manager.query(`DELETE FROM ${table} WHERE session_id = $1`, [sessionId]);
      }
      await manager.query(`INSERT INTO quarantined_sessions (session_id, reason) VALUES ($1, $2)`, [
        sessionId,
        reason.slice(0, 2000),
      ]);
      return { expired: pending, dispatched };
    });
  }

  /**
   * @internal Queues commands for other sessions in the caller's transaction. A command
   * already queued, or already decided, is not queued again.
   */
  async dispatch(
    manager: EntityManager,
    commands: readonly SubAgentCommand[],
  ): Promise<InboxEntry[]> {
    const entries: InboxEntry[] = [];
    for (const command of commands) {
      const [inserted] = await manager.query<{ position: string }[]>(
        `INSERT INTO session_inbox (session_id, command_id, command)
         SELECT $1, $2, $3
         WHERE NOT EXISTS (SELECT 1 FROM processed_commands WHERE platform = $4 AND command_id = $2)
         ON CONFLICT (session_id, command_id) DO NOTHING RETURNING position`,
        [command.sessionId, command.id, toJsonbText(command), platformOf(command.sessionId)],
      );
      if (inserted)
        entries.push({ position: inserted.position, sessionId: command.sessionId, command });
    }
    return entries;
  }

  /** @internal The session's provider history through `throughSeq`, outside any transaction. */
  historySource(sessionId: string): HistorySource {
    return async (throughSeq) => {
      const rows = await this.dataSource.query<
        { seq: number; data: SessionEvent; occurred_at: Date }[]
      >(
        `SELECT seq, data, occurred_at FROM session_events
         WHERE session_id = $1 AND seq <= $2 AND type = ANY($3::text[]) ORDER BY seq`,
        [sessionId, throughSeq, HISTORY_EVENT_TYPES],
      );
      return rows.map(journaled);
    };
  }

  /** @internal */
  async lock(manager: EntityManager, sessionId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [
      SESSION_LOCK_CLASS,
      sessionId,
    ]);
  }

  /**
   * @internal Everything a decision reads first, in one round trip: whether the session is
   * quarantined, whether the command was already decided, and the session as of its last
   * commit — its state row plus the events after it. Costs the events since the row was
   * written (none, normally), not the whole journal.
   */
  async open(
    manager: EntityManager,
    sessionId: string,
    commandId: string | undefined,
    callId?: string,
  ): Promise<
    | { readonly kind: 'quarantined' | 'duplicate' }
    | {
        readonly kind: 'loaded';
        readonly state: SessionState;
        /** The settled calls `settled_calls` already holds (a replay knows them all). */
        readonly settledStored: Readonly<Record<string, boolean>>;
      }
  > {
    const [row] = await manager.query<
      {
        quarantined: boolean;
        seen: boolean;
        state: SessionState | null;
        settled: boolean | null;
        tail: { seq: number; data: SessionEvent; occurred_at: string }[];
      }[]
    >(
      `SELECT
         EXISTS (SELECT 1 FROM quarantined_sessions WHERE session_id = $1) AS quarantined,
         ($2::text IS NOT NULL
           AND EXISTS (SELECT 1 FROM processed_commands
                       WHERE platform = $4 AND command_id = $2)) AS seen,
         s.state,
         (SELECT answered FROM settled_calls
          WHERE session_id = $1 AND call_id = $5) AS settled,
         (SELECT coalesce(json_agg(json_build_object(
                   'seq', e.seq, 'data', e.data, 'occurred_at', e.occurred_at) ORDER BY e.seq),
                 '[]'::json)
          FROM session_events e
          WHERE e.session_id = $1 AND e.seq > coalesce(s.version, 0)) AS tail
       FROM (SELECT 1) AS one
       LEFT JOIN session_state s ON s.session_id = $1 AND s.format = $3`,
      [sessionId, commandId ?? null, STATE_FORMAT, platformOf(sessionId), callId ?? null],
    );
    if (!row) throw new Error('the opening read returned no row');
    if (row.quarantined) return { kind: 'quarantined' };
    if (row.seen) return { kind: 'duplicate' };
    try {
      const stored = row.state ? fromJsonbValue<SessionState>(row.state) : undefined;
      // The row holds no settled calls (they would grow with the session): only the one the
      // command names, from `settled_calls`. A replay from the first event knows them all.
      const settledStored =
        stored && callId !== undefined && row.settled !== null ? { [callId]: row.settled } : {};
      const base = stored
        ? { ...stored, settledCalls: { ...stored.settledCalls, ...settledStored } }
        : initialSessionState(sessionId);
      const state = row.tail.map(journaled).reduce(evolve, base);
      return { kind: 'loaded', state, settledStored };
    } catch (error) {
      throw new SessionUnreplayable(sessionId, error);
    }
  }

  /** @internal Appends what the recorder holds beyond `from`, with outputs and projections. */
  async persist(
    manager: EntityManager,
    recorder: SessionRecorder,
    from: { events: number; unjournaled: number; dispatched?: number },
    previous: SessionState,
  ): Promise<{ outputs: number; dispatched: InboxEntry[] }> {
    const sessionId = recorder.current.sessionId;
    const events = recorder.recorded.slice(from.events);
    const outputs = [
      ...events.flatMap((r) => r.outputs),
      ...recorder.unjournaledOutputs.slice(from.unjournaled),
    ];
    const decisions = events.flatMap((r) => r.decisions ?? []);
    if (events.length > 0) {
      await this.append(
        manager,
        events.map((e) => ({ ...e, sessionId })),
      );
      await this.projectChanges(manager, previous, recorder.current);
      await this.saveStates(manager, [
        { state: recorder.current, settledBefore: previous.settledCalls },
      ]);
      await projectAlwaysGrants(manager, recorder.current, events);
      await projectSessionGrants(manager, recorder.current, events, this.sessionGrantTtlMs);
      await schedulePromptTimers(manager, sessionId, events);
    }
    if (outputs.length > 0 || decisions.length > 0) {
      await this.enqueue(manager, outputs, decisions);
    }
    const dispatched = await this.dispatch(
      manager,
      recorder.dispatched.slice(from.dispatched ?? 0),
    );
    return { outputs: outputs.length, dispatched };
  }

  private async stateRows(
    manager: EntityManager,
    ids: readonly string[],
  ): Promise<Map<string, SessionState>> {
    const rows = await manager.query<{ session_id: string; state: SessionState }[]>(
      `SELECT session_id, state FROM session_state
       WHERE session_id = ANY($1::text[]) AND format = $2`,
      [ids, STATE_FORMAT],
    );
    return new Map(rows.map((r) => [r.session_id, fromJsonbValue<SessionState>(r.state)]));
  }

  /**
   * Writes each state row, without its settled calls, and the calls settled since
   * `settledBefore` to `settled_calls`, where a late click looks its call up.
   */
  private async saveStates(
    manager: EntityManager,
    entries: readonly {
      readonly state: SessionState;
      readonly settledBefore: Readonly<Record<string, boolean>>;
    }[],
  ): Promise<void> {
    const settled = entries.flatMap(({ state, settledBefore }) =>
      Object.entries(state.settledCalls)
        .filter(([callId]) => !Object.hasOwn(settledBefore, callId))
        .map(([callId, answered]) => ({ sessionId: state.sessionId, callId, answered })),
    );
    if (settled.length > 0) {
      await manager.query(
        `INSERT INTO settled_calls (session_id, call_id, answered)
         SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[])
         ON CONFLICT (session_id, call_id) DO UPDATE SET answered = EXCLUDED.answered`,
        [
          settled.map((c) => c.sessionId),
          settled.map((c) => c.callId),
          settled.map((c) => c.answered),
        ],
      );
    }
    const states = entries.map(({ state }) => ({ ...state, settledCalls: {} }));
    await manager.query(
      `INSERT INTO session_state (session_id, version, format, state)
       SELECT s.session_id, s.version, $4, s.state
       FROM unnest($1::text[], $2::int[], $3::jsonb[]) AS s(session_id, version, state)
       ON CONFLICT (session_id) DO UPDATE
         SET version = EXCLUDED.version, format = EXCLUDED.format, state = EXCLUDED.state,
             updated_at = now()`,
      [
        states.map((s) => s.sessionId),
        states.map((s) => s.version),
        states.map((s) => toJsonbText(s)),
        STATE_FORMAT,
      ],
    );
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
    // G4: the audit entries commit with the events they describe, or not at all.
    await appendAuditFor(manager, events);
  }

  /** The pending-approvals and in-flight projections of the sessions' current states. */
  private async project(
    manager: EntityManager,
    recorders: readonly SessionRecorder[],
  ): Promise<void> {
    const ids = recorders.map((r) => r.current.sessionId);
    const pending = recorders.flatMap((r) =>
      pendingPrompts(r.current).map((p) => ({ sessionId: r.current.sessionId, ...p })),
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

  /**
   * The projections, touched only where the state changed since the last commit: a turn that
   * neither parks nor settles costs no projection write.
   */
  private async projectChanges(
    manager: EntityManager,
    before: SessionState,
    after: SessionState,
  ): Promise<void> {
    const key = (s: SessionState) =>
      pendingPrompts(s)
        .map((p) => `${p.callId}@${p.requestedSeq}`)
        .join(' ');
    if (key(before) !== key(after)) {
      const pending = pendingPrompts(after);
      await manager.query(`DELETE FROM pending_approvals WHERE session_id = $1`, [after.sessionId]);
      // S22: a prompt no longer pending takes its reminders and deadline with it.
      const still = pending.map((p) => p.callId);
      if (pendingPrompts(before).some((p) => !still.includes(p.callId))) {
        await cancelPromptTimers(manager, after.sessionId, still);
      }
      if (pending.length > 0) {
        await manager.query(
          `INSERT INTO pending_approvals (session_id, call_id, requested_seq)
           SELECT $1, * FROM unnest($2::text[], $3::int[])`,
          [after.sessionId, pending.map((p) => p.callId), pending.map((p) => p.requestedSeq)],
        );
      }
    }
    const inFlight = (s: SessionState) =>
      s.turn.phase === 'Running' || s.turn.phase === 'Redriving';
    if (inFlight(after) && !inFlight(before)) {
      await manager.query(
        `INSERT INTO sessions_in_flight (session_id) VALUES ($1) ON CONFLICT DO NOTHING`,
        [after.sessionId],
      );
    } else if (!inFlight(after) && inFlight(before)) {
      await manager.query(`DELETE FROM sessions_in_flight WHERE session_id = $1`, [
        after.sessionId,
      ]);
    }
  }

  /**
   * Queues the outputs, and the approval API's decision events (A2), and wakes the relay
   * (NOTIFY is delivered only if this commits). A decision's row id is its `Nats-Msg-Id`,
   * `decision:<approvalId>`: one per approval, whatever retries the outbox makes.
   */
  private async enqueue(
    manager: EntityManager,
    outputs: readonly Output[],
    decisions: readonly ApprovalDecided[] = [],
  ): Promise<void> {
    const rows = [
      ...outputs.map((o) => ({
        id: o.id,
        sessionId: o.sessionId,
        subject: outputSubject(this.subjects, o),
        payload: JSON.stringify(o),
      })),
      ...decisions.map((d) => ({
        id: d.id,
        sessionId: d.sessionId,
        subject: this.subjects.decision(d.clientId, d.approvalId),
        payload: JSON.stringify(d),
      })),
    ];
    await manager.query(
      `WITH queued AS (
         INSERT INTO outbox (id, session_id, subject, payload)
         SELECT o.id, o.session_id, o.subject, o.payload
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
           WITH ORDINALITY AS o(id, session_id, subject, payload, n)
         ORDER BY o.n
         ON CONFLICT (id) DO NOTHING)
       SELECT pg_notify($5, '')`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.sessionId),
        rows.map((r) => r.subject),
        rows.map((r) => r.payload),
        this.outboxChannel,
      ],
    );
  }
}

function journaled(r: {
  seq: number;
  data: SessionEvent;
  occurred_at: Date | string;
}): JournaledEvent {
  return {
    seq: r.seq,
    event: fromJsonbValue<SessionEvent>(r.data),
    occurredAt: new Date(r.occurred_at).toISOString(),
  };
}

/** Command ids are unique per platform only; the session id names it (`<platform>-…`). */
function platformOf(sessionId: string): string {
  return platformOfSessionId(sessionId) ?? sessionId;
}

function isConversation(value: unknown): value is NonNullable<SessionState['conversation']> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { platform?: unknown }).platform === 'string' &&
    typeof (value as { channelId?: unknown }).channelId === 'string'
  );
}

/**
 * One attempt at a decision. The first transaction checks the ledger, loads the session and
 * runs the decision up to its first checkpoint; every checkpoint commits and hands the
 * connection back, and the next commit opens a new transaction under the session's lock.
 */
class DecisionRun {
  committedAny = false;
  private runner?: QueryRunner;
  private persisted = { events: 0, unjournaled: 0, dispatched: 0 };
  /** The state as of the last commit (or the load), for the projections' diff. */
  private committedState?: SessionState;
  private outputs = 0;
  private settled = false;

  constructor(
    private readonly store: SessionStore,
    private readonly sessionId: string,
    private readonly commandId: string | undefined,
    private readonly options: DecideOptions,
  ) {}

  async execute(decision: Decision): Promise<DecisionResult> {
    try {
      const manager = await this.begin();
      const opened = await this.store.open(
        manager,
        this.sessionId,
        this.commandId,
        this.options.callId,
      );
      if (opened.kind !== 'loaded') {
        await this.settleInbox(manager);
        await this.finish();
        return { kind: opened.kind };
      }
      this.committedState = { ...opened.state, settledCalls: opened.settledStored };
      const recorder = new SessionRecorder(
        opened.state,
        this.store.now(),
        async (r, point) => {
          await this.commit(r);
          this.store.failpoint(point);
          r.clockAt(this.store.now());
        },
        this.store.historySource(this.sessionId),
      );
      await decision(recorder);
      await this.commit(recorder);
      return { kind: 'decided', events: recorder.recorded.length, outputs: this.outputs };
    } catch (error) {
      await this.abort();
      throw error;
    }
  }

  private async begin(): Promise<EntityManager> {
    if (this.runner) return this.runner.manager;
    const runner = this.store.dataSource.createQueryRunner();
    await runner.connect();
    this.runner = runner;
    await runner.startTransaction();
    await this.store.lock(runner.manager, this.sessionId);
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
    const persisted = await this.store.persist(
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
        // With the first commit: a redelivery after a crash mid-decision is a duplicate, and
        // recovery, not the command, settles the turn left in flight.
        await manager.query(
          `INSERT INTO processed_commands (platform, command_id, session_id) VALUES ($1, $2, $3)`,
          [platformOf(this.sessionId), this.commandId, this.sessionId],
        );
      }
      await this.settleInbox(manager);
    }
    await this.finish();
    this.committedAny = true;
    if (!this.settled) {
      this.settled = true;
      this.options.onDurable?.();
    }
    if (persisted.dispatched.length > 0) this.options.onDispatched?.(persisted.dispatched);
  }

  private async settleInbox(manager: EntityManager): Promise<void> {
    if (this.options.inboxPosition === undefined) return;
    await manager.query(`DELETE FROM session_inbox WHERE position = $1`, [
      this.options.inboxPosition,
    ]);
  }

  private async finish(): Promise<void> {
    const runner = this.runner;
    if (!runner) return;
    this.runner = undefined;
    try {
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
  }

  private async abort(): Promise<void> {
    const runner = this.runner;
    if (!runner) return;
    this.runner = undefined;
    try {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
    } finally {
      await runner.release();
    }
  }
}
