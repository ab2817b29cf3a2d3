import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * G3: an "Always allow" may carry the scope, lifetime and number of uses its tool's policy
 * offered. Every existing row is the blanket grant it was (all three NULL), so none narrows
 * or widens. `uses_left` is taken one at a time, in the transaction that journals the call it
 * covers; the CHECK makes a use below zero impossible whatever writes it.
 */
export class ToolGrantsScoped1796343000000 implements MigrationInterface {
  name = 'ToolGrantsScoped1796343000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE tool_grants
        ADD COLUMN scope jsonb,
        ADD COLUMN uses_granted integer,
        ADD COLUMN uses_left integer CHECK (uses_left >= 0),
        ADD COLUMN expires_at timestamptz`);
  }

  /** Back to blanket grants: a limited one would widen, so it goes. */
  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `DELETE FROM tool_grants WHERE scope IS NOT NULL OR uses_left IS NOT NULL OR expires_at IS NOT NULL`,
    );
    await runner.query(`
      ALTER TABLE tool_grants
        DROP COLUMN scope, DROP COLUMN uses_granted, DROP COLUMN uses_left, DROP COLUMN expires_at`);
  }
}
