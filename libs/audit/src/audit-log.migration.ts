import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * G4: the audit trail. `audit_log` holds one hash chain per UTC day (`n` from 1, each entry's
 * `prev_hash` the hash of the one before); `audit_days` the day's head and count, locked by
 * each append so two writers cannot fork a chain, and kept when a day's entries are pruned.
 */
export class AuditLog1796256000000 implements MigrationInterface {
  name = 'AuditLog1796256000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE audit_days (
        day date PRIMARY KEY,
        head_hash text NOT NULL,
        count integer NOT NULL,
        pruned boolean NOT NULL DEFAULT false,
        pruned_at timestamptz
      )`);
    await runner.query(`
      CREATE TABLE audit_log (
        seq bigserial PRIMARY KEY,
        day date NOT NULL REFERENCES audit_days (day),
        n integer NOT NULL,
        at timestamptz NOT NULL,
        kind text NOT NULL,
        session_id text NOT NULL,
        call_id text,
        who jsonb,
        via text,
        arguments_hash text,
        detail jsonb NOT NULL,
        prev_hash text NOT NULL,
        hash text NOT NULL,
        UNIQUE (day, n)
      )`);
    await runner.query(`CREATE INDEX audit_log_at ON audit_log (at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE audit_log`);
    await runner.query(`DROP TABLE audit_days`);
  }
}
