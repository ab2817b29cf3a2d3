import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * X14: "Allow in this chat" as a real grant beside the journal's record of the answer: one
 * row per session, person and tool, with when it lapses and whether an operator revoked it,
 * so `tollgate grants` can list and revoke it and the session honours both.
 */
export class SessionGrants1796169600000 implements MigrationInterface {
  name = 'SessionGrants1796169600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE session_grants (
        session_id   text        NOT NULL,
        person_id    text        NOT NULL,
        tool_name    text        NOT NULL,
        platform     text        NOT NULL,
        workspace_id text        NOT NULL,
        conversation jsonb       NOT NULL,
        granted_by   jsonb       NOT NULL,
        granted_at   timestamptz NOT NULL,
        expires_at   timestamptz NOT NULL,
        revoked_at   timestamptz,
        PRIMARY KEY (session_id, person_id, tool_name)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE session_grants`);
  }
}
