import type { MigrationInterface, QueryRunner } from 'typeorm';

const BEFORE = [
  'PendingApprovalPromptTracked',
  'PendingApprovalPromptRefreshed',
  'PendingApprovalPromptCleared',
];
const AFTER = [...BEFORE, 'PendingApprovalPromptReposted'];

function typeCheck(types: readonly string[]): string {
  return `CHECK (type IN (${types.map((t) => `'${t}'`).join(', ')}))`;
}

/**
 * `PendingApprovalPromptReposted`: a prompt whose message could not be edited for good is
 * shown by a new message, and the journal says so (R4).
 */
export class BindingPromptReposted1765065600000 implements MigrationInterface {
  name = 'BindingPromptReposted1765065600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE prompt_events DROP CONSTRAINT prompt_events_type_check,
         ADD CONSTRAINT prompt_events_type_check ${typeCheck(AFTER)}`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE prompt_events DROP CONSTRAINT prompt_events_type_check,
         ADD CONSTRAINT prompt_events_type_check ${typeCheck(BEFORE)}`,
    );
  }
}
