import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * G1: the members of a prompt's approver groups (a Slack user group, a Discord role, a
 * Mattermost group) as the binding resolved them when it posted the prompt, by group id. A
 * click or typed answer names the groups its sender is in from this, never from a later look.
 */
export class BindingPromptApproverMembers1796371200000 implements MigrationInterface {
  name = 'BindingPromptApproverMembers1796371200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE prompts ADD COLUMN approver_members jsonb`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE prompts DROP COLUMN approver_members`);
  }
}
