import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * G4: when a grant's end (lapsed, used up) reached the audit trail. A grant stops covering at
 * its instant whatever this says; the leader's housekeeping records each end once, and an
 * answer that gives the grant anew clears it.
 */
export class GrantEndsAudited1796344000000 implements MigrationInterface {
  name = 'GrantEndsAudited1796344000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE tool_grants ADD COLUMN end_audited_at timestamptz`);
    await runner.query(`ALTER TABLE session_grants ADD COLUMN end_audited_at timestamptz`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE tool_grants DROP COLUMN end_audited_at`);
    await runner.query(`ALTER TABLE session_grants DROP COLUMN end_audited_at`);
  }
}
