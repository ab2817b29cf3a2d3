import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The approval-api's schema (docs/architecture.md, the approval API): agent clients with their
 * hashed keys and confined routes, each approval's read model (the request as accepted, and
 * what the session decided), and the webhook deliveries replicas share through row locks.
 */
export class ApprovalApiSchema1764806400000 implements MigrationInterface {
  name = 'ApprovalApiSchema1764806400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE approval_clients (
        id             text        PRIMARY KEY,
        name           text        NOT NULL,
        key_id         text        NOT NULL UNIQUE,
        key_hash       text        NOT NULL,
        platform       text        NOT NULL,
        workspace_id   text        NOT NULL,
        conversations  jsonb       NOT NULL,
        approvers      jsonb       NOT NULL,
        on_behalf_of   text,
        webhook_url    text,
        webhook_secret text,
        created_at     timestamptz NOT NULL DEFAULT now(),
        rotated_at     timestamptz,
        revoked_at     timestamptz
      )`);
    await runner.query(`
      CREATE TABLE approvals (
        id               text        PRIMARY KEY,
        client_id        text        NOT NULL REFERENCES approval_clients (id),
        idempotency_key  text        NOT NULL,
        request_body     text        NOT NULL,
        command          jsonb       NOT NULL,
        published_at     timestamptz,
        status           text        NOT NULL DEFAULT 'pending',
        tool             text        NOT NULL,
        arguments_hash   text        NOT NULL,
        agent            jsonb       NOT NULL,
        route            jsonb       NOT NULL,
        created_at       timestamptz NOT NULL DEFAULT now(),
        decided_at       timestamptz,
        decision         jsonb,
        redeemed_at      timestamptz,
        UNIQUE (client_id, idempotency_key)
      )`);
    await runner.query(`
      CREATE TABLE webhook_deliveries (
        id            uuid        PRIMARY KEY,
        approval_id   text        NOT NULL REFERENCES approvals (id),
        client_id     text        NOT NULL,
        attempts      integer     NOT NULL DEFAULT 0,
        next_at       timestamptz NOT NULL DEFAULT now(),
        give_up_at    timestamptz NOT NULL,
        delivered_at  timestamptz,
        abandoned_at  timestamptz,
        last_error    text,
        created_at    timestamptz NOT NULL DEFAULT now(),
        UNIQUE (approval_id)
      )`);
    await runner.query(`
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at)
        WHERE delivered_at IS NULL AND abandoned_at IS NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE webhook_deliveries`);
    await runner.query(`DROP TABLE approvals`);
    await runner.query(`DROP TABLE approval_clients`);
  }
}
