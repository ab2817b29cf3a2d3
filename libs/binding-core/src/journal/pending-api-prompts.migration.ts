import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A2: a typed answer looks up the approval API's pending prompts in its conversation (their
 * session is an agent session, not the conversation's), so that lookup gets its own small index.
 */
export class BindingPendingApiPrompts1796083200000 implements MigrationInterface {
  name = 'BindingPendingApiPrompts1796083200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `CREATE INDEX prompts_pending_api ON prompts (conversation)
       WHERE status = 'pending' AND session_id LIKE '%-api-%'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX prompts_pending_api`);
  }
}
