import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * "Always allow" grants (docs/architecture.md §3.6): one row per workspace and tool, a projection
 * of journaled approve_always answers written in the answer's own transaction.
 */
export class ToolGrants1764633600000 implements MigrationInterface {
  name = 'ToolGrants1764633600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE tool_grants (
        workspace_key text        NOT NULL,
        tool_name     text        NOT NULL,
        granted_by    jsonb       NOT NULL,
        session_id    text        NOT NULL,
        granted_at    timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_key, tool_name)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE tool_grants`);
  }
}
