import type { MigrationClass } from '@tollgate/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { BindingPendingApiPrompts1796083200000 } from './pending-api-prompts.migration';
import { BindingPromptReposted1765065600000 } from './prompt-reposted.migration';
import { BindingPromptPostNonce1764806400000 } from './prompt-post-nonce.migration';
import { BindingPromptStraySince1796400000000 } from './prompt-stray-since.migration';
import { BindingOwedRefreshes1765152000000 } from './owed-refreshes.migration';
import { BindingPromptTraceparent1796287800000 } from './prompt-traceparent.migration';
import { BindingPromptApproverMembers1796371200000 } from './prompt-approver-members.migration';

/**
 * The prompt journal shared by every binding, in the binding's own schema. Tables are
 * unqualified: the data source's search_path is that schema.
 */
export class BindingPromptJournal1764547200000 implements MigrationInterface {
  name = 'BindingPromptJournal1764547200000';

  async up(runner: QueryRunner): Promise<void> {
    // Append-only: the projection below can always be explained from it.
    await runner.query(`
      CREATE TABLE prompt_events (
        id          bigserial   PRIMARY KEY,
        session_id  text        NOT NULL,
        call_id     text        NOT NULL,
        seq         integer     NOT NULL CHECK (seq >= 1),
        type        text        NOT NULL CHECK (type IN (
                      'PendingApprovalPromptTracked',
                      'PendingApprovalPromptRefreshed',
                      'PendingApprovalPromptCleared')),
        data        jsonb       NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE INDEX prompt_events_by_prompt ON prompt_events (session_id, call_id, id)`,
    );
    // One row per prompt, locked while a message for it is claimed. `intent` is the chat
    // effect a replica set out to make under the lease; left behind by a crash, it tells the
    // next one to look for the post before posting again.
    await runner.query(`
      CREATE TABLE prompts (
        session_id   text        NOT NULL,
        call_id      text        NOT NULL,
        prompt_ref   text        NOT NULL UNIQUE CHECK (prompt_ref ~ '^[A-Za-z0-9]{1,32}$'),
        conversation jsonb       NOT NULL,
        status       text        NOT NULL CHECK (status IN ('untracked', 'pending', 'cleared')),
        last_seq     integer     NOT NULL DEFAULT 0,
        request      jsonb,
        message_ref  jsonb,
        outcome      text        CHECK (outcome IN ('resolved', 'abandoned', 'expired', 'tombstone')),
        lease_owner  text,
        lease_until  timestamptz,
        intent       jsonb,
        updated_at   timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, call_id),
        CHECK (status <> 'pending' OR (request IS NOT NULL AND message_ref IS NOT NULL)),
        CHECK ((status = 'cleared') = (outcome IS NOT NULL))
      )`);
    // TextOutput posted once and Rejected noticed once, by output id: JetStream's duplicate
    // window is two minutes, a redelivery or a re-publish can come much later.
    await runner.query(`
      CREATE TABLE delivered_outputs (
        output_id    text        PRIMARY KEY,
        kind         text        NOT NULL CHECK (kind IN ('text', 'notice')),
        message_ref  jsonb,
        delivered_at timestamptz,
        lease_owner  text,
        lease_until  timestamptz,
        claim_id     text
      )`);
    // Slack counts any message in a thread that already has a session (docs/protocol.md §1.1).
    await runner.query(`
      CREATE TABLE known_sessions (
        session_id    text        PRIMARY KEY,
        conversation  jsonb       NOT NULL,
        first_seen_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE known_sessions`);
    await runner.query(`DROP TABLE delivered_outputs`);
    await runner.query(`DROP TABLE prompts`);
    await runner.query(`DROP TABLE prompt_events`);
  }
}

/** The shared binding tables; each app appends its own migrations after these. */
export const BINDING_CORE_MIGRATIONS: readonly MigrationClass[] = [
  BindingPromptJournal1764547200000,
  BindingPromptPostNonce1764806400000,
  BindingPromptReposted1765065600000,
  BindingOwedRefreshes1765152000000,
  BindingPendingApiPrompts1796083200000,
  BindingPromptTraceparent1796287800000,
  BindingPromptApproverMembers1796371200000,
  BindingPromptStraySince1796400000000,
];

/** Every migration of a binding's schema, in order (also what `npm run migrate` should run). */
export function bindingMigrations(
  platformMigrations: readonly MigrationClass[] = [],
): readonly MigrationClass[] {
  return [...BINDING_CORE_MIGRATIONS, ...platformMigrations];
}
