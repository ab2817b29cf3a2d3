import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * S22: the reminders and deadlines of pending prompts, written in the transaction that
 * journals their request, so a timer exists exactly when its prompt does. A poller claims due
 * rows for a lease (`claimed_until`); the command ledger, not the row, makes a firing happen
 * once, and the row goes once its decision is settled.
 */
export class PromptTimers1796122000000 implements MigrationInterface {
  name = 'PromptTimers1796122000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE prompt_timers (
        session_id    text        NOT NULL,
        call_id       text        NOT NULL,
        kind          text        NOT NULL CHECK (kind IN ('reminder', 'deadline')),
        reminder      int         NOT NULL DEFAULT 0,
        on_deadline   text        CHECK (on_deadline IN ('deny', 'expire')),
        due_at        timestamptz NOT NULL,
        claimed_until timestamptz,
        PRIMARY KEY (session_id, call_id, kind, reminder)
      )`);
    await runner.query(`CREATE INDEX prompt_timers_due ON prompt_timers (due_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE prompt_timers`);
  }
}
