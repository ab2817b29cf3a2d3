// The lease and journal writes, one statement each, on whichever Statements the caller holds
// (a claim's transaction or the pool). Apart from the repository so the claim reads as the
// steps it takes; these are the SQL behind them.
import { pooledQuery, queryPrepared, toJsonbArrayText, toJsonbText } from '@tollgate/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import type { EffectDecision } from '../prompt/prompt-decision';
import type { PromptEvent } from '../prompt/prompt-event';
import type { PromptKey, PromptState } from '../prompt/prompt-state';
import { SELECT_LOCKED } from './prompt-journal.sql';
import type { PromptLease } from './prompt-journal.port';
import { projectionOf, type PromptRow, type StoredIntent } from './prompt-journal.rows';

/**
 * Where a statement runs: a transaction's EntityManager, or straight on the pool
 * (pooledQuery) for the statements most outputs make outside any transaction.
 */
export interface Statements {
  query<T>(text: string, values: unknown[]): Promise<T>;
  /** A prepared statement by name (queryPrepared), where the pool runs it. */
  queryNamed?(name: string, text: string, values: unknown[]): Promise<unknown[]>;
}

export function onPool(dataSource: DataSource): Statements {
  const query = pooledQuery(dataSource);
  return {
    query: <T>(text: string, values: unknown[]) => query(text, values) as Promise<T>,
    queryNamed: (name, text, values) => query(text, values, name),
  };
}

/** Gives back a grab that set out on nothing: its intent goes with the lease. */
export async function ungrab(
  statements: Statements,
  key: PromptKey,
  claimId: string,
): Promise<void> {
  await statements.query(
    `UPDATE prompts SET lease_owner = NULL, lease_until = NULL, intent = NULL, updated_at = now()
     WHERE session_id = $1 AND call_id = $2 AND intent->>'claimId' = $3`,
    [key.sessionId, key.callId, claimId],
  );
}

export async function lockedRow(
  manager: EntityManager,
  key: PromptKey,
): Promise<PromptRow | undefined> {
  const rows: PromptRow[] = await manager.query(SELECT_LOCKED, [key.sessionId, key.callId]);
  return rows[0];
}

/** With `version`, only while the row is still that version; whether the lease was taken. */
export async function takeLease(
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
  // Prepared, as the other statements of a claim (queryPrepared): it answers its rows.
  const taken = await queryPrepared(
    manager,
    'tollgate_prompt_lease',
    `UPDATE prompts
     SET lease_owner = $3,
         lease_until = clock_timestamp() + $4::int * interval '1 millisecond',
         intent = $5, updated_at = now()
     WHERE session_id = $1 AND call_id = $2 AND ($6::text IS NULL OR xmin::text = $6::text)
     RETURNING 1`,
    [lease.key.sessionId, lease.key.callId, owner, leaseMs, toJsonbText(intent), version],
  );
  return taken.length > 0;
}

/**
 * Appends `events` and writes `state` as the projection, ending any lease: the effect it
 * covered is done. With `claimId`, only while that claim still holds the prompt; false,
 * with nothing written, otherwise. One statement, so journaling costs one round trip.
 * `postNonce`, when given, becomes the nonce of the tracked post.
 */
export async function record(
  manager: Statements,
  key: PromptKey,
  events: readonly PromptEvent[],
  state: PromptState,
  claimId: string | null = null,
  postNonce?: string,
  keepRequest = false,
): Promise<boolean> {
  const columns = projectionOf(state);
  // Prepared: most outputs end here, and planning this statement cost the server more than
  // running it (see queryPrepared).
  const [result] = await queryPrepared<{ recorded: number }>(
    manager,
    'tollgate_prompt_record',
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
       SELECT $1, $2, e.seq, e.type, d.data
       FROM unnest($3::int[], $4::text[]) WITH ORDINALITY AS e(seq, type, n)
         JOIN jsonb_array_elements($5::jsonb) WITH ORDINALITY AS d(data, n) USING (n)
       WHERE EXISTS (SELECT 1 FROM projected)
       ORDER BY e.n)
     SELECT count(*)::int AS recorded FROM projected`,
    [
      key.sessionId,
      key.callId,
      events.map((e) => e.seq),
      events.map((e) => e.type),
      toJsonbArrayText(events),
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
