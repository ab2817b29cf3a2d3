import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Interaction tokens are kept sealed (InteractionTokenSealer) instead of in plain text, and
 * only while Discord honours them (a quarter of an hour, pruned by the binding). The rows
 * kept so far are dropped rather than sealed: they are useful for minutes at most, and a
 * notice without one goes by DM.
 */
export class DiscordInteractionTokensSealed1764892800000 implements MigrationInterface {
  name = 'DiscordInteractionTokensSealed1764892800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`DELETE FROM discord_interaction_tokens`);
    await runner.query(`ALTER TABLE discord_interaction_tokens DROP COLUMN token`);
    await runner.query(
      `ALTER TABLE discord_interaction_tokens ADD COLUMN sealed_token bytea NOT NULL`,
    );
    await runner.query(
      `CREATE INDEX discord_interaction_tokens_received_at
         ON discord_interaction_tokens (received_at)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX discord_interaction_tokens_received_at`);
    await runner.query(`DELETE FROM discord_interaction_tokens`);
    await runner.query(`ALTER TABLE discord_interaction_tokens DROP COLUMN sealed_token`);
    await runner.query(`ALTER TABLE discord_interaction_tokens ADD COLUMN token text NOT NULL`);
  }
}
