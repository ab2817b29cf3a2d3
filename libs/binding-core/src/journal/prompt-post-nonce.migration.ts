import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The nonce of the post the journal tracks for a prompt (see PromptTarget.postNonce). Null for
 * a prompt never posted, and for one posted before this column existed: its first edit gives
 * it one.
 */
export class BindingPromptPostNonce1764806400000 implements MigrationInterface {
  name = 'BindingPromptPostNonce1764806400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE prompts ADD COLUMN post_nonce text CHECK (post_nonce ~ '^[0-9a-f]{32}$')`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE prompts DROP COLUMN post_nonce`);
  }
}
