import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A2: grants given on an approval API prompt belong to that client too (docs/protocol.md,
 * 2026-12-01 (b) §6): "Always allow" there covers that approver, that client and that tool, and
 * never another client nor the session's own chat turns. `client_id` is `''` for every grant
 * given in chat, which is what each existing row is, so no grant widens or moves.
 */
export class ToolGrantsPerClient1796083200000 implements MigrationInterface {
  name = 'ToolGrantsPerClient1796083200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE tool_grants
        ADD COLUMN client_id text NOT NULL DEFAULT '',
        DROP CONSTRAINT tool_grants_pkey,
        ADD PRIMARY KEY (platform, workspace_id, person_id, tool_name, client_id)`);
  }

  /** Back to chat grants only: a client's grant has no place in the older key. */
  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DELETE FROM tool_grants WHERE client_id <> ''`);
    await runner.query(`
      ALTER TABLE tool_grants
        DROP CONSTRAINT tool_grants_pkey,
        DROP COLUMN client_id,
        ADD PRIMARY KEY (platform, workspace_id, person_id, tool_name)`);
  }
}
