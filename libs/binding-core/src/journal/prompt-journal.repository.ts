// The prompt journal's claims and journaling: who may make a prompt's effect (the lease),
// and the events that effect leaves. The reads are inherited (prompt-journal.reads.ts), the
// row's shape and the statements are in prompt-journal.rows.ts and prompt-journal.writes.ts.
import { randomUUID } from 'node:crypto';
import { queryPrepared, toJsonbText } from '@tollgate/persistence';
import type { PromptDecision } from '../prompt/prompt-decision';
import type { PromptEvent } from '../prompt/prompt-event';
import { evolvePrompt } from '../prompt/prompt-lifecycle.decider';
import { newPostNonce } from '../prompt/post-nonce';
import { promptRefOf } from '../prompt/prompt-ref';
import type { PromptState } from '../prompt/prompt-state';
import { GRAB_OR_READ, INSERT_OR_LOCK } from './prompt-journal.sql';
import type {
  ApproverMembers,
  PromptClaim,
  PromptClaimRequest,
  PromptJournal,
  PromptLease,
} from './prompt-journal.port';
import { PromptJournalReads } from './prompt-journal.reads';
import {
  CorruptPromptRow,
  decodedRow,
  requestOf,
  sinceOf,
  stateOfRow,
  strayOf,
  type PromptRow,
  type StoredIntent,
} from './prompt-journal.rows';
import { lockedRow, onPool, record, takeLease, ungrab } from './prompt-journal.writes';
import { RecordBatcher } from './record-batcher';
import { currentTraceparent } from '@tollgate/telemetry';

/** {@link PromptJournal} in the binding's schema, through raw SQL on the service's data source. */
export class PromptJournalRepository extends PromptJournalReads implements PromptJournal {
  private batcher?: RecordBatcher;

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
    // Prepared, like the record that ends most outputs (queryPrepared).
    const [read] = await queryPrepared<PromptRow>(
      pooled,
      'tollgate_prompt_grab_or_read',
      GRAB_OR_READ,
      [
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
      ],
    );
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
          ...strayOf(row),
        };
      }
      // Nothing was set out on: the lease and its intent go, and a drop is settled.
      await ungrab(pooled, key, claimId);
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
          const taken = await takeLease(
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
              ...strayOf(row),
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
      const found = inserted[0] ?? (await lockedRow(manager, key));
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
        await takeLease(manager, lease, owner, leaseMs, intent, since);
        return { kind: 'unfinished_post', lease, target, intent, since };
      }
      const decision = decide(state);
      switch (decision.kind) {
        case 'drop':
          return { kind: 'settled', decision };
        case 'tombstone':
          await record(manager, key, [decision.event], evolvePrompt(state, decision.event));
          return { kind: 'settled', decision };
        case 'post':
        case 'edit': {
          const { lease, target } = leaseFor(
            decision.kind === 'post' ? newPostNonce() : (row.post_nonce ?? newPostNonce()),
          );
          await takeLease(manager, lease, owner, leaseMs, decision);
          return { kind: 'claimed', lease, target, decision, ...strayOf(row) };
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
    // Journaled with the records the replica's other handlers finish in the same turn.
    this.batcher ??= new RecordBatcher(onPool(dataSource));
    return this.batcher.record({
      key: lease.key,
      events,
      state: next,
      claimId: lease.claimId,
      postNonce,
      keepRequest,
    });
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

  async recordStrayPost(lease: PromptLease, since: Date): Promise<void> {
    const dataSource = await this.db();
    await dataSource.query(
      `UPDATE prompts SET stray_since = LEAST(COALESCE(stray_since, $4::timestamptz), $4::timestamptz), updated_at = now()
       WHERE session_id = $1 AND call_id = $2 AND intent->>'claimId' = $3`,
      [lease.key.sessionId, lease.key.callId, lease.claimId, since],
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
}
