import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * G4: entries are inserted unchained in the decision's transaction and linked afterwards by
 * the sealer (audit-sealer.ts), so a decision no longer holds its day's head lock until it
 * commits. `n`, `prev_hash` and `hash` are empty until then; the day's `audit_days` row is
 * created by the sealer, so an entry no longer references it (the foreign key's share lock
 * would queue a sealer's head update behind every decision of the day).
 */
export class AuditSealedLater1796430000000 implements MigrationInterface {
  name = 'AuditSealedLater1796430000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE audit_log DROP CONSTRAINT audit_log_day_fkey`);
    await runner.query(`
      ALTER TABLE audit_log
        ALTER COLUMN n DROP NOT NULL,
        ALTER COLUMN prev_hash DROP NOT NULL,
        ALTER COLUMN hash DROP NOT NULL,
        ADD CONSTRAINT audit_log_sealed_whole
          CHECK ((n IS NULL) = (hash IS NULL) AND (n IS NULL) = (prev_hash IS NULL))`);
    // The sealer's only read: the few entries not linked yet, in insertion order.
    await runner.query(`CREATE INDEX audit_log_unsealed ON audit_log (seq) WHERE hash IS NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX audit_log_unsealed`);
    await runner.query(`DELETE FROM audit_log WHERE hash IS NULL`);
    await runner.query(`
      ALTER TABLE audit_log
        DROP CONSTRAINT audit_log_sealed_whole,
        ALTER COLUMN n SET NOT NULL,
        ALTER COLUMN prev_hash SET NOT NULL,
        ALTER COLUMN hash SET NOT NULL`);
    await runner.query(
      `ALTER TABLE audit_log ADD CONSTRAINT audit_log_day_fkey
       FOREIGN KEY (day) REFERENCES audit_days (day)`,
    );
  }
}
