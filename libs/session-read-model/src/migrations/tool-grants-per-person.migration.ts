import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Grants belong to a person (docs/protocol.md §4, revised 2026-11-30): "Always allow" covers the
 * approver, that tool, that platform and that workspace. Before, one row per workspace and
 * tool covered everyone there, which in Discord DMs (workspace `""`) meant every user's DM.
 *
 * Existing rows: each names in `granted_by` the approver of the latest approve_always answer
 * for its workspace and tool. A row is kept as that person's grant only when the journal holds
 * that answer (that person, approve_always, a call of that tool, in that session): then the
 * person really gave it, and it now covers exactly them. Every other row is dropped, never
 * widened or guessed at: permission for a whole workspace belongs in the policy file
 * (`mode: auto`), and a person who loses a grant is merely asked again. Earlier approvers
 * that a later answer had overwritten are asked again too, for the same reason.
 *
 * `revoked_at` keeps an operator's revocation as a row, so replaying an answer journaled
 * before it cannot bring the grant back.
 */
export class ToolGrantsPerPerson1795998600000 implements MigrationInterface {
  name = 'ToolGrantsPerPerson1795998600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE tool_grants
        ADD COLUMN platform     text,
        ADD COLUMN workspace_id text,
        ADD COLUMN person_id    text,
        ADD COLUMN revoked_at   timestamptz`);
    // workspace_key was `<platform>:<workspace id>`; platforms hold no ':', workspace ids may.
    await runner.query(`
      UPDATE tool_grants SET
        platform     = split_part(workspace_key, ':', 1),
        workspace_id = substr(workspace_key, strpos(workspace_key, ':') + 1),
        person_id    = granted_by->>'id'`);
    await runner.query(`
      DELETE FROM tool_grants g
      WHERE coalesce(g.person_id, '') = ''
         OR NOT EXISTS (
              SELECT 1
              FROM session_events answer
              JOIN session_events asked
                ON asked.session_id = answer.session_id
               AND asked.type = 'ToolApprovalRequested'
               AND asked.data->>'callId' = answer.data->>'callId'
              WHERE answer.session_id = g.session_id
                AND answer.type = 'ToolApprovalResolved'
                AND answer.data->>'optionKey' = 'approve_always'
                AND answer.data->'resolvedBy'->>'id' = g.person_id
                AND asked.data->>'toolName' = g.tool_name)`);
    await runner.query(`
      ALTER TABLE tool_grants
        DROP CONSTRAINT tool_grants_pkey,
        DROP COLUMN workspace_key,
        ALTER COLUMN platform SET NOT NULL,
        ALTER COLUMN workspace_id SET NOT NULL,
        ALTER COLUMN person_id SET NOT NULL,
        ADD PRIMARY KEY (platform, workspace_id, person_id, tool_name)`);
  }

  /** Back to one row per workspace and tool: the latest grant in force of each. */
  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DELETE FROM tool_grants WHERE revoked_at IS NOT NULL`);
    await runner.query(`
      DELETE FROM tool_grants g USING tool_grants newer
      WHERE newer.platform = g.platform AND newer.workspace_id = g.workspace_id
        AND newer.tool_name = g.tool_name
        AND (newer.granted_at, newer.person_id) > (g.granted_at, g.person_id)`);
    await runner.query(`ALTER TABLE tool_grants ADD COLUMN workspace_key text`);
    await runner.query(`UPDATE tool_grants SET workspace_key = platform || ':' || workspace_id`);
    await runner.query(`
      ALTER TABLE tool_grants
        DROP CONSTRAINT tool_grants_pkey,
        DROP COLUMN platform,
        DROP COLUMN workspace_id,
        DROP COLUMN person_id,
        DROP COLUMN revoked_at,
        ALTER COLUMN workspace_key SET NOT NULL,
        ADD PRIMARY KEY (workspace_key, tool_name)`);
  }
}
