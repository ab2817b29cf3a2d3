import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * D7: the W3C `traceparent` of the output that first brought a prompt here, so a click on it,
 * which arrives later as a new platform request, continues the trace of the turn that asked.
 * Null when tracing is off.
 */
export class BindingPromptTraceparent1796287800000 implements MigrationInterface {
  name = 'BindingPromptTraceparent1796287800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE prompts ADD COLUMN traceparent text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE prompts DROP COLUMN traceparent`);
  }
}
