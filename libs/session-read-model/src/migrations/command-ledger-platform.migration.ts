import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Command ids are unique per platform only (the protocol §1): a Mattermost `trigger_id` is free
 * text, so a ledger keyed by id alone let one platform claim another's id first and have the
 * real command dropped as a duplicate. Existing rows take their platform from their session id
 * (`<platform>-<hex>`).
 */
export class CommandLedgerPlatform1764806400000 implements MigrationInterface {
  name = 'CommandLedgerPlatform1764806400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE processed_commands ADD COLUMN platform text`);
    await runner.query(`UPDATE processed_commands SET platform = split_part(session_id, '-', 1)`);
    await runner.query(`ALTER TABLE processed_commands ALTER COLUMN platform SET NOT NULL`);
    await runner.query(`ALTER TABLE processed_commands DROP CONSTRAINT processed_commands_pkey`);
    await runner.query(`ALTER TABLE processed_commands ADD PRIMARY KEY (platform, command_id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    // Ids two platforms share cannot both stay under the old key; the newer claim goes.
    await runner.query(`
      DELETE FROM processed_commands p USING processed_commands q
      WHERE p.command_id = q.command_id AND p.processed_at > q.processed_at`);
    await runner.query(`ALTER TABLE processed_commands DROP CONSTRAINT processed_commands_pkey`);
    await runner.query(`ALTER TABLE processed_commands DROP COLUMN platform`);
    await runner.query(`ALTER TABLE processed_commands ADD PRIMARY KEY (command_id)`);
  }
}
