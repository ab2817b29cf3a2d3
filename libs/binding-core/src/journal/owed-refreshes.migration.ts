import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refreshes the platform had no room for yet (issue 12, P5): parked here, one per prompt (the
 * newest), and shown by the owed-refresh sweeper as the platform's limits allow, so that a
 * restart's thousands of refreshes never stand between a new prompt and its post.
 */
export class BindingOwedRefreshes1765152000000 implements MigrationInterface {
  name = 'BindingOwedRefreshes1765152000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE owed_refreshes (
        session_id  text        NOT NULL,
        call_id     text        NOT NULL,
        seq         integer     NOT NULL,
        output      jsonb       NOT NULL,
        owed_at     timestamptz NOT NULL DEFAULT now(),
        lease_owner text,
        lease_until timestamptz,
        PRIMARY KEY (session_id, call_id)
      )`);
    await runner.query(`CREATE INDEX owed_refreshes_owed_at ON owed_refreshes (owed_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE owed_refreshes`);
  }
}
