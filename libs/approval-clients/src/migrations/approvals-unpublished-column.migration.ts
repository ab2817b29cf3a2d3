import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `approvals.published_at` is gone: a repeated create of a pending approval publishes it
 * again (idempotent by its Nats-Msg-Id and the session's command ledger), so nothing needs to
 * remember whether the first publish got through, and a create costs one write less.
 */
export class ApprovalsUnpublishedColumn1764810000000 implements MigrationInterface {
  name = 'ApprovalsUnpublishedColumn1764810000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE approvals DROP COLUMN IF EXISTS published_at`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE approvals ADD COLUMN published_at timestamptz`);
  }
}
