import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * R3: when a post of the prompt may be on the platform without the journal tracking it (the
 * look for an unfinished post failed past its bound and the prompt was posted afresh), the
 * time that post was set out on. The output that clears the prompt looks for such a post
 * again and clears it too, so its buttons do not stay alive. Null for every other prompt.
 */
export class BindingPromptStraySince1796400000000 implements MigrationInterface {
  name = 'BindingPromptStraySince1796400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE prompts ADD COLUMN stray_since timestamptz`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE prompts DROP COLUMN stray_since`);
  }
}
