import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The latest interaction token of each person in each channel: a private notice is an
 * ephemeral follow-up on it while it is young enough (Discord honours a token for 15
 * minutes). Shared by the replicas, since a click and the answer to it may be handled by
 * different ones.
 */
export class DiscordInteractionTokens1764633600000 implements MigrationInterface {
  name = 'DiscordInteractionTokens1764633600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE discord_interaction_tokens (
        user_id     text        NOT NULL,
        channel_id  text        NOT NULL,
        token       text        NOT NULL,
        received_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, channel_id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE discord_interaction_tokens`);
  }
}
