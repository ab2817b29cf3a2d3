import { randomUUID } from 'node:crypto';
import { fromJsonbValue, pooledQuery, toJsonbText } from '@tollgate/persistence';
import type { Conversation, ToolInteractionRequest } from '@tollgate/protocol';
import type { DataSource, EntityManager } from 'typeorm';
import type { MessageRef } from '../platform-adapter.port';
import type { EffectDecision, PromptDecision } from '../prompt/prompt-decision';
import type { PromptEvent } from '../prompt/prompt-event';
import { evolvePrompt } from '../prompt/prompt-lifecycle.decider';
import { newPostNonce } from '../prompt/post-nonce';
import { promptRefOf } from '../prompt/prompt-ref';
import {
  UNTRACKED,
  type ClearedOutcome,
  type PromptKey,
  type PromptState,
  type PromptStatus,
} from '../prompt/prompt-state';
import type { DataSourceAccess } from './data-source-access';
import { GRAB_OR_READ, INSERT_OR_LOCK, SELECT_LOCKED } from './prompt-journal.sql';
import type {
  ApproverMembers,
  JournaledPrompt,
  PendingPrompt,
  PromptAddress,
  PromptClaim,
  PromptClaimRequest,
  PromptJournal,
  PromptLease,
} from './prompt-journal.port';
import { currentTraceparent } from '@tollgate/telemetry';

/** The effect a handler set out to make, kept on the row until it is journaled. */
interface StoredIntent {
  readonly claimId: string;
  readonly owner: string;
  /**
   * What was set out on. A pending prompt's lease taken as it is read (GRAB_OR_READ) names
   * only the kind: an edit's intent is never read back beyond it, a post's always whole.
   */
  readonly decision: EffectDecision | { readonly kind: 'edit' };
  /** A post's nonce, chosen before it is made: a post found later carries this one. */
  readonly postNonce?: string;
  /**
   * When the effect was first set out on (ISO-8601), kept by every later claim of the same
   * unfinished post: reconciliation reads the platform back to it, and gives up on it after a
   * bounded time.
   */
  readonly since?: string;
}

interface PromptRow {
  prompt_ref: string;
  conversation: Conversation;
  status: PromptStatus;
  last_seq: number;
  request: ToolInteractionRequest | null;
  message_ref: MessageRef | null;
  outcome: ClearedOutcome | null;
  post_nonce: string | null;
  lease_owner: string | null;
  intent: StoredIntent | null;
  leased: boolean;
  lease_remaining_ms: number | null;
  /** xmin, when read for an optimistic claim. */
  version?: string;
  /** GRAB_OR_READ took the lease of this pending prompt with the statement that read it. */
  grabbed?: boolean;
}

/**
 * Where a statement runs: a transaction's EntityManager, or straight on the pool
 * (pooledQuery) for the statements most outputs make outside any transaction.
 */
interface Statements {
  query<T>(text: string, values: unknown[]): Promise<T>;
}

function onPool(dataSource: DataSource): Statements {
  const query = pooledQuery(dataSource);
  return { query: <T>(text: string, values: unknown[]) => query(text, values) as Promise<T> };
}

/** The projection row says something its status cannot hold; a bug or a hand edit. */
class CorruptPromptRow extends Error {
  override readonly name = 'CorruptPromptRow';
}

/** {@link PromptJournal} in the binding's schema, through raw SQL on the service's data source. */
export class PromptJournalRepository implements PromptJournal {
  constructor(private readonly db: DataSourceAccess) {}

  /**
   * Most claims take one or two statements and no transaction. An edit of a pending prompt
   * takes its lease with the read (GRAB_OR_READ). Otherwise: read the prompt with its row
   * version, decide, and take the lease only if the row is still that version (another
   * handler's write in between changes xmin, and the claim is made again under a lock).
   * What is rare — a tombstone, an unfinished post, a race — goes the locked way.
   */
  async claim(
    request: PromptClaimRequest,
    decide: (state: PromptState) => PromptDecision,
  ): Promise<PromptClaim> {
    const { key, conversation, owner, leaseMs } = request;
    const dataSource = await this.db();
    const claimId = randomUUID();
    const grabIntent: StoredIntent = {
      claimId,
      owner,
      decision: { kind: 'edit' },
      since: new Date().toISOString(),
    };
    const pooled = onPool(dataSource);
    const [read]: PromptRow[] = await pooled.query(GRAB_OR_READ, [
      key.sessionId,
      key.callId,
      promptRefOf(key),
      JSON.stringify(conversation),
      // The output's trace, which a click on this prompt continues (ForwardClick).
      currentTraceparent(),
      owner,
      leaseMs,
      toJsonbText(grabIntent),
      request.editsPendingBefore ?? null,
    ]);
    const row = read && decodedRow(read);
    if (row?.grabbed === true) {
      const state = stateOfRow(row);
      const decision = decide(state);
      if (decision.kind === 'edit') {
        const postNonce = row.post_nonce ?? newPostNonce();
        const lease: PromptLease = { key, claimId, claimed: state, postNonce };
        return {
          kind: 'claimed',
          lease,
          target: { conversation: row.conversation, promptRef: row.prompt_ref, postNonce },
          decision,
        };
      }
      // Nothing was set out on: the lease and its intent go, and a drop is settled.
      await this.ungrab(pooled, key, claimId);
      if (decision.kind === 'drop') return { kind: 'settled', decision };
      return this.claimLocked(request, decide);
    }
    if (row !== undefined && row.version !== undefined && row.intent?.decision.kind !== 'post') {
      if (row.leased) {
        return {
          kind: 'leased',
          owner: row.lease_owner ?? 'unknown',
          retryAfterMs: Math.max(1, row.lease_remaining_ms ?? 1),
        };
      }
      const state = stateOfRow(row);
      const decision = decide(state);
      switch (decision.kind) {
        case 'drop':
          return { kind: 'settled', decision };
        case 'post':
        case 'edit': {
          const postNonce =
            decision.kind === 'post' ? newPostNonce() : (row.post_nonce ?? newPostNonce());
          const lease: PromptLease = { key, claimId: randomUUID(), claimed: state, postNonce };
          const taken = await this.takeLease(
            pooled,
            lease,
            owner,
            leaseMs,
            decision,
            new Date(),
            row.version,
          );
          if (taken) {
            return {
              kind: 'claimed',
              lease,
              target: { conversation: row.conversation, promptRef: row.prompt_ref, postNonce },
              decision,
            };
          }
          break;
        }
        case 'tombstone':
        case 'notice':
          break;
      }
    }
    return this.claimLocked(request, decide);
  }

  /** The claim under a row lock, in one transaction. */
  private async claimLocked(
    request: PromptClaimRequest,
    decide: (state: PromptState) => PromptDecision,
  ): Promise<PromptClaim> {
    const { key, conversation, owner, leaseMs } = request;
    const dataSource = await this.db();
    return dataSource.transaction(async (manager): Promise<PromptClaim> => {
      // DO NOTHING on any conflict: prompt_ref is derived from the key, so a racing insert of
      // the same prompt conflicts on either unique index. A prompt that exists (most outputs)
      // is locked by the same statement; one it inserted is not in that statement's snapshot,
      // so it is locked by a second look.
      const inserted: PromptRow[] = await manager.query(INSERT_OR_LOCK, [
        key.sessionId,
        key.callId,
        promptRefOf(key),
        JSON.stringify(conversation),
        currentTraceparent(),
      ]);
      const found = inserted[0] ?? (await this.lockedRow(manager, key));
      const row = found && decodedRow(found);
      if (row === undefined) {
        throw new CorruptPromptRow(
          `prompt ${key.sessionId}/${key.callId}: its prompt_ref is taken by another prompt`,
        );
      }
      if (row.leased) {
        return {
          kind: 'leased',
          owner: row.lease_owner ?? 'unknown',
          retryAfterMs: Math.max(1, row.lease_remaining_ms ?? 1),
        };
      }
      const state = stateOfRow(row);
      // The effect's post nonce: a post that may be out there keeps the one it was made with,
      // a new post gets a new one, an edit keeps the tracked post's (a post from before nonces
      // existed gets one at its first edit).
      const leaseFor = (postNonce: string | undefined) => ({
        lease: {
          key,
          claimId: randomUUID(),
          claimed: state,
          ...(postNonce === undefined ? {} : { postNonce }),
        } satisfies PromptLease,
        target: {
          conversation: row.conversation,
          promptRef: row.prompt_ref,
          ...(postNonce === undefined ? {} : { postNonce }),
        },
      });
      // A post set out on and never journaled decides everything after it: until it is
      // looked for, the binding cannot know whether a live prompt is out there.
      if (row.intent?.decision.kind === 'post') {
        const intent = row.intent.decision;
        const since = sinceOf(row.intent);
        const { lease, target } = leaseFor(row.intent.postNonce);
        await this.takeLease(manager, lease, owner, leaseMs, intent, since);
        return { kind: 'unfinished_post', lease, target, intent, since };
      }
      const decision = decide(state);
      switch (decision.kind) {
        case 'drop':
          return { kind: 'settled', decision };
        case 'tombstone':
          await this.record(manager, key, [decision.event], evolvePrompt(state, decision.event));
          return { kind: 'settled', decision };
        case 'post':
        case 'edit': {
          const { lease, target } = leaseFor(
            decision.kind === 'post' ? newPostNonce() : (row.post_nonce ?? newPostNonce()),
          );
          await this.takeLease(manager, lease, owner, leaseMs, decision);
          return { kind: 'claimed', lease, target, decision };
        }
        case 'notice':
          throw new Error('a notice changes no prompt and is never claimed');
      }
    });
  }

  /**
   * Nothing but the lease's holder changes a prompt's row while the lease holds (every other
   * write replaces or clears `intent`), so the state seen at the claim is the state to fold
   * the events into, and one statement conditional on the claim id journals them.
   */
  async complete(lease: PromptLease, events: readonly PromptEvent[]): Promise<boolean> {
    const dataSource = await this.db();
    const next = events.reduce(evolvePrompt, lease.claimed);
    // No events: the post was not found, so the nonce chosen for it belongs to nothing.
    const postNonce = events.length > 0 ? lease.postNonce : undefined;
    // The request the row holds already is not written again (a resolution or a refresh
    // keeps it): serializing and sending it was most of what journaling an edit cost.
    const held = requestOf(lease.claimed);
    const keepRequest = held !== undefined && requestOf(next) === held;
    const pooled = onPool(dataSource);
    return this.record(pooled, lease.key, events, next, lease.claimId, postNonce, keepRequest);
  }

  async release(lease: PromptLease, holdMs = 0): Promise<void> {
    const dataSource = await this.db();
    await dataSource.query(
      holdMs > 0
        ? `UPDATE prompts SET lease_until = clock_timestamp() + $4::int * interval '1 millisecond',
             updated_at = now()
           WHERE session_id = $1 AND call_id = $2 AND intent->>'claimId' = $3`
        : `UPDATE prompts SET lease_owner = NULL, lease_until = NULL, updated_at = now()
           WHERE session_id = $1 AND call_id = $2 AND intent->>'claimId' = $3`,
      holdMs > 0
        ? [lease.key.sessionId, lease.key.callId, lease.claimId, Math.ceil(holdMs)]
        : [lease.key.sessionId, lease.key.callId, lease.claimId],
    );
  }

  /** Gives back a grab that set out on nothing: its intent goes with the lease. */
  private async ungrab(statements: Statements, key: PromptKey, claimId: string): Promise<void> {
    await statements.query(
      `UPDATE prompts SET lease_owner = NULL, lease_until = NULL, intent = NULL, updated_at = now()
       WHERE session_id = $1 AND call_id = $2 AND intent->>'claimId' = $3`,
      [key.sessionId, key.callId, claimId],
    );
  }

  async recordApproverMembers(lease: PromptLease, members: ApproverMembers): Promise<void> {
    const dataSource = await this.db();
    await dataSource.query(
      `UPDATE prompts SET approver_members = $4::jsonb, updated_at = now()
       WHERE session_id = $1 AND call_id = $2 AND intent->>'claimId' = $3`,
      [lease.key.sessionId, lease.key.callId, lease.claimId, toJsonbText(members)],
    );
  }

  async stateOf(key: PromptKey): Promise<PromptState> {
    const dataSource = await this.db();
    const rows: PromptRow[] = await dataSource.query(
      `SELECT prompt_ref, conversation, status, last_seq, request, message_ref, outcome,
              post_nonce, lease_owner, intent, false AS leased, NULL AS lease_remaining_ms
       FROM prompts WHERE session_id = $1 AND call_id = $2`,
      [key.sessionId, key.callId],
    );
    return rows[0] === undefined ? UNTRACKED : stateOfRow(decodedRow(rows[0]));
  }

  async findByKey(key: PromptKey): Promise<JournaledPrompt | undefined> {
    const dataSource = await this.db();
    const rows: PromptRow[] = await dataSource.query(
      `SELECT prompt_ref, conversation, status, last_seq, request, message_ref, outcome,
              post_nonce, lease_owner, intent, false AS leased, NULL AS lease_remaining_ms
       FROM prompts WHERE session_id = $1 AND call_id = $2`,
      [key.sessionId, key.callId],
    );
    const row = rows[0];
    return row === undefined
      ? undefined
      : {
          key,
          conversation: row.conversation,
          promptRef: row.prompt_ref,
          state: stateOfRow(row),
          ...(row.post_nonce === null ? {} : { postNonce: row.post_nonce }),
        };
  }

  async findByRef(promptRef: string): Promise<PromptAddress | undefined> {
    const dataSource = await this.db();
    const rows: {
      session_id: string;
      call_id: string;
      conversation: Conversation;
      prompt_ref: string;
      agent: ToolInteractionRequest['agent'] | null;
      traceparent: string | null;
      approver_members: ApproverMembers | null;
    }[] = await dataSource.query(
      `SELECT session_id, call_id, conversation, prompt_ref, request->'agent' AS agent, traceparent,
              approver_members
       FROM prompts WHERE prompt_ref = $1`,
      [promptRef],
    );
    const row = rows[0];
    return row === undefined
      ? undefined
      : {
          key: { sessionId: row.session_id, callId: row.call_id },
          conversation: row.conversation,
          promptRef: row.prompt_ref,
          ...(row.agent ? { agent: row.agent } : {}),
          ...(row.traceparent ? { traceparent: row.traceparent } : {}),
          ...(row.approver_members ? { approverMembers: row.approver_members } : {}),
        };
  }

  async pendingIn(sessionId: string, conversation?: Conversation): Promise<PendingPrompt[]> {
    const dataSource = await this.db();
    // The primary key (session_id, call_id) serves the session's own prompts; a sub-agent's
    // are found by the conversation they are shown in (their session id is not derived from
    // it). The approval API's have their own rule (pendingApprovalsFor).
    const rows: PendingRow[] = await dataSource.query(
      `SELECT session_id, call_id, conversation, prompt_ref, request, message_ref, traceparent,
              approver_members
       FROM prompts
       WHERE status = 'pending'
         AND (session_id = $1
              OR ($2::jsonb IS NOT NULL AND conversation = $2::jsonb AND request ? 'agent'
                  AND session_id NOT LIKE '%-api-%'))`,
      [sessionId, conversation === undefined ? null : JSON.stringify(conversation)],
    );
    return pendingPrompts(rows);
  }

  async pendingApprovalsFor(
    conversation: Conversation,
    personId: string,
  ): Promise<PendingPrompt[]> {
    const dataSource = await this.db();
    // The partial index prompts_pending_api serves this lookup (its predicate repeated here).
    const rows: PendingRow[] = await dataSource.query(
      `SELECT session_id, call_id, conversation, prompt_ref, request, message_ref, traceparent,
              approver_members
       FROM prompts
       WHERE status = 'pending' AND session_id LIKE '%-api-%' AND conversation = $1::jsonb
         AND request->'approvers' @> jsonb_build_array(jsonb_build_object('id', $2::text))`,
      [JSON.stringify(conversation), personId],
    );
    return pendingPrompts(rows);
  }

  private async lockedRow(manager: EntityManager, key: PromptKey): Promise<PromptRow | undefined> {
    const rows: PromptRow[] = await manager.query(SELECT_LOCKED, [key.sessionId, key.callId]);
    return rows[0];
  }

  /** With `version`, only while the row is still that version; whether the lease was taken. */
  private async takeLease(
    manager: Statements,
    lease: PromptLease,
    owner: string,
    leaseMs: number,
    decision: EffectDecision,
    since: Date = new Date(),
    version: string | null = null,
  ): Promise<boolean> {
    const intent: StoredIntent = {
      claimId: lease.claimId,
      owner,
      decision,
      since: since.toISOString(),
      ...(decision.kind === 'post' && lease.postNonce !== undefined
        ? { postNonce: lease.postNonce }
        : {}),
    };
    const taken: unknown[] = await manager.query(
      `UPDATE prompts
       SET lease_owner = $3,
           lease_until = clock_timestamp() + $4::int * interval '1 millisecond',
           intent = $5, updated_at = now()
       WHERE session_id = $1 AND call_id = $2 AND ($6::text IS NULL OR xmin::text = $6::text)
       RETURNING 1`,
      [lease.key.sessionId, lease.key.callId, owner, leaseMs, toJsonbText(intent), version],
    );
    // TypeORM answers an UPDATE … RETURNING with [rows, count], the pool with its rows.
    const rows = Array.isArray(taken[0]) ? (taken[0] as unknown[]) : taken;
    return rows.length > 0;
  }

  /**
   * Appends `events` and writes `state` as the projection, ending any lease: the effect it
   * covered is done. With `claimId`, only while that claim still holds the prompt; false,
   * with nothing written, otherwise. One statement, so journaling costs one round trip.
   * `postNonce`, when given, becomes the nonce of the tracked post.
   */
  private async record(
    manager: Statements,
    key: PromptKey,
    events: readonly PromptEvent[],
    state: PromptState,
    claimId: string | null = null,
    postNonce?: string,
    keepRequest = false,
  ): Promise<boolean> {
    const columns = projectionOf(state);
    const [result]: { recorded: number }[] = await manager.query(
      `WITH projected AS (
         UPDATE prompts
         SET status = $6, last_seq = $7,
             request = CASE WHEN $13::boolean THEN request ELSE $8::jsonb END,
             message_ref = $9, outcome = $10,
             post_nonce = COALESCE($12::text, post_nonce),
             lease_owner = NULL, lease_until = NULL, intent = NULL, updated_at = now()
         WHERE session_id = $1 AND call_id = $2
           AND ($11::text IS NULL OR intent->>'claimId' = $11::text)
         RETURNING 1),
       appended AS (
         INSERT INTO prompt_events (session_id, call_id, seq, type, data)
         SELECT $1, $2, e.seq, e.type, e.data
         FROM unnest($3::int[], $4::text[], $5::jsonb[]) WITH ORDINALITY AS e(seq, type, data, n)
         WHERE EXISTS (SELECT 1 FROM projected)
         ORDER BY e.n)
       SELECT count(*)::int AS recorded FROM projected`,
      [
        key.sessionId,
        key.callId,
        events.map((e) => e.seq),
        events.map((e) => e.type),
        events.map((e) => toJsonbText(e)),
        columns.status,
        columns.lastSeq,
        columns.request === undefined || keepRequest ? null : toJsonbText(columns.request),
        columns.messageRef === undefined ? null : toJsonbText(columns.messageRef),
        columns.outcome ?? null,
        claimId,
        postNonce ?? null,
        keepRequest,
      ],
    );
    return (result?.recorded ?? 0) > 0;
  }
}

function requestOf(state: PromptState): ToolInteractionRequest | undefined {
  return state.status === 'untracked' ? undefined : state.request;
}

/** An intent from before `since` was kept counts as set out on now: its age is unknown. */
function sinceOf(intent: StoredIntent): Date {
  const since = intent.since === undefined ? Number.NaN : Date.parse(intent.since);
  return Number.isNaN(since) ? new Date() : new Date(since);
}

function projectionOf(state: PromptState): {
  status: PromptStatus;
  lastSeq: number;
  request?: ToolInteractionRequest;
  messageRef?: MessageRef;
  outcome?: ClearedOutcome;
} {
  switch (state.status) {
    case 'untracked':
      return { status: 'untracked', lastSeq: 0 };
    case 'pending':
      return { ...state };
    case 'cleared':
      return { ...state };
  }
}

/**
 * Display text and names in a request (and in an intent's rendering) may hold U+0000 or lone
 * surrogates, which jsonb refuses: they are written with toJsonbText and read back here.
 */
function decodedRow(row: PromptRow): PromptRow {
  return {
    ...row,
    request: fromJsonbValue<PromptRow['request']>(row.request),
    message_ref: fromJsonbValue<PromptRow['message_ref']>(row.message_ref),
    intent: fromJsonbValue<PromptRow['intent']>(row.intent),
  };
}

function stateOfRow(row: PromptRow): PromptState {
  switch (row.status) {
    case 'untracked':
      return UNTRACKED;
    case 'pending':
      if (row.request === null || row.message_ref === null) {
        throw new CorruptPromptRow(`pending prompt ${row.prompt_ref} lacks its request or message`);
      }
      return {
        status: 'pending',
        lastSeq: row.last_seq,
        request: row.request,
        messageRef: row.message_ref,
      };
    case 'cleared':
      if (row.outcome === null) {
        throw new CorruptPromptRow(`cleared prompt ${row.prompt_ref} lacks its outcome`);
      }
      return {
        status: 'cleared',
        lastSeq: row.last_seq,
        outcome: row.outcome,
        ...(row.request === null ? {} : { request: row.request }),
        ...(row.message_ref === null ? {} : { messageRef: row.message_ref }),
      };
  }
}

interface PendingRow {
  session_id: string;
  call_id: string;
  conversation: Conversation;
  prompt_ref: string;
  request: ToolInteractionRequest | null;
  message_ref: MessageRef | null;
  traceparent: string | null;
  approver_members: ApproverMembers | null;
}

function pendingPrompts(rows: readonly PendingRow[]): PendingPrompt[] {
  return rows
    .map((row) => {
      const request = fromJsonbValue<ToolInteractionRequest | null>(row.request);
      const messageRef = fromJsonbValue<MessageRef | null>(row.message_ref);
      if (request === null || messageRef === null) {
        throw new CorruptPromptRow(`pending prompt ${row.prompt_ref} lacks its request or message`);
      }
      return {
        key: { sessionId: row.session_id, callId: row.call_id },
        conversation: row.conversation,
        promptRef: row.prompt_ref,
        ...(request.agent === undefined ? {} : { agent: request.agent }),
        request,
        messageRef,
        ...(row.traceparent ? { traceparent: row.traceparent } : {}),
        ...(row.approver_members ? { approverMembers: row.approver_members } : {}),
      };
    })
    .sort((a, b) => a.request.seq - b.request.seq);
}
