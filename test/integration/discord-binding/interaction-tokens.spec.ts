import { bindingMigrations } from '@tollgate/binding-core';
import { createDataSource, prepareSchemaAndMigrate } from '@tollgate/persistence';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { MIGRATIONS } from '../../../apps/discord-binding/src/migrations';
import { InteractionTokenRepository } from '../../../apps/discord-binding/src/platform/interaction-token.repository';
import { InteractionTokenSealer } from '../../../apps/discord-binding/src/platform/interaction-token.sealer';
import { DiscordInteractionTokens1764633600000 } from '../../../apps/discord-binding/src/platform/interaction-tokens.migration';
import {
  INTERACTION_TOKEN_LIFETIME_MS,
  pruneInteractionTokens,
} from '../../../apps/discord-binding/src/platform/interaction-tokens.housekeeping';
import { interactionToken } from '@tollgate/platform-standins';
import { createTestSchema, type TestSchema } from '../../support/database';

const BOT_TOKEN = 'x4-discord-bot-token';
const MINUTE = 60_000;

async function migrated(
  schema: TestSchema,
  migrations: ReturnType<typeof bindingMigrations>,
): Promise<DataSource> {
  const dataSource = createDataSource({
    url: schema.url,
    schema: schema.schema,
    migrations: [...migrations],
    applicationName: 'x4-interaction-tokens-test',
  });
  await dataSource.initialize();
  await prepareSchemaAndMigrate(dataSource, pino({ level: 'silent' }));
  return dataSource;
}

/** (integration, real PostgreSQL) Discord interaction tokens at rest: sealed, and kept 15 minutes. */
describe('X4 Discord interaction tokens are kept only while usable', () => {
  const schema = createTestSchema('x4itok');
  let dataSource: DataSource;
  let tokens: InteractionTokenRepository;

  beforeAll(async () => {
    dataSource = await migrated(schema, MIGRATIONS);
    tokens = new InteractionTokenRepository(
      () => Promise.resolve(dataSource),
      new InteractionTokenSealer(BOT_TOKEN),
    );
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await schema.drop();
  });

  const ago = (ms: number) => new Date(Date.now() - ms);

  it('X4 a kept token is not readable from the database without the bot token', async () => {
    const token = interactionToken();
    await tokens.remember('u-dump', 'c-dump', token, new Date());
    const dump: Array<{ row: string }> = await dataSource.query(
      `SELECT row_to_json(t)::text AS row FROM discord_interaction_tokens t`,
    );
    expect(dump.map((r) => r.row).join('\n')).not.toContain(token);
    expect(await tokens.latest('u-dump', 'c-dump', 14 * MINUTE)).toBe(token);
    const withAnotherBotToken = new InteractionTokenRepository(
      () => Promise.resolve(dataSource),
      new InteractionTokenSealer('another-bot-token'),
    );
    expect(await withAnotherBotToken.latest('u-dump', 'c-dump', 14 * MINUTE)).toBeUndefined();
  });

  it('X4 a token older than 15 minutes is never handed out, whatever age the caller allows', async () => {
    const token = interactionToken();
    await tokens.remember('u-old', 'c-old', token, ago(INTERACTION_TOKEN_LIFETIME_MS + MINUTE));
    expect(await tokens.latest('u-old', 'c-old', 60 * MINUTE)).toBeUndefined();
    await tokens.remember('u-old', 'c-old', token, ago(10 * MINUTE));
    expect(await tokens.latest('u-old', 'c-old', 60 * MINUTE)).toBe(token);
    expect(await tokens.latest('u-old', 'c-old', 5 * MINUTE)).toBeUndefined();
  });

  it('X4 a token is bound to its person and channel: moved to another row it does not open', async () => {
    const token = interactionToken();
    await tokens.remember('u-a', 'c-move', token, new Date());
    await tokens.remember('u-b', 'c-move', interactionToken(), new Date());
    await dataSource.query(
      `UPDATE discord_interaction_tokens SET sealed_token =
         (SELECT sealed_token FROM discord_interaction_tokens WHERE user_id = 'u-a' AND channel_id = 'c-move')
       WHERE user_id = 'u-b' AND channel_id = 'c-move'`,
    );
    expect(await tokens.latest('u-b', 'c-move', 14 * MINUTE)).toBeUndefined();
  });

  it('X4 pruning deletes every token past 15 minutes and keeps the younger ones', async () => {
    await dataSource.query(`DELETE FROM discord_interaction_tokens`);
    await tokens.remember('u1', 'c-prune', interactionToken(), ago(16 * MINUTE));
    await tokens.remember('u2', 'c-prune', interactionToken(), ago(2 * 60 * MINUTE));
    await tokens.remember('u3', 'c-prune', interactionToken(), ago(14 * MINUTE));
    await tokens.remember('u4', 'c-prune', interactionToken(), new Date());
    expect(await pruneInteractionTokens(dataSource)).toBe(2);
    const rows: Array<{ user_id: string }> = await dataSource.query(
      `SELECT user_id FROM discord_interaction_tokens ORDER BY user_id`,
    );
    expect(rows.map((r) => r.user_id)).toEqual(['u3', 'u4']);
    expect(await pruneInteractionTokens(dataSource)).toBe(0);
  });
});

describe('X4 upgrading drops the tokens kept in plain text', () => {
  const schema = createTestSchema('x4itokup');

  afterAll(() => schema.drop());

  it('X4 plain-text tokens from before are gone after the migration', async () => {
    const before = await migrated(
      schema,
      bindingMigrations([DiscordInteractionTokens1764633600000]),
    );
    try {
      await before.query(
        `INSERT INTO discord_interaction_tokens (user_id, channel_id, token, received_at)
         VALUES ('u', 'c', 'itok_plain_text_token', now())`,
      );
    } finally {
      await before.destroy();
    }
    const after = await migrated(schema, MIGRATIONS);
    try {
      const dump: Array<{ row: string }> = await after.query(
        `SELECT row_to_json(t)::text AS row FROM discord_interaction_tokens t`,
      );
      expect(dump).toEqual([]);
      const columns: Array<{ column_name: string }> = await after.query(
        `SELECT column_name FROM information_schema.columns
          WHERE table_schema = $1 AND table_name = 'discord_interaction_tokens'`,
        [schema.schema],
      );
      expect(columns.map((c) => c.column_name)).not.toContain('token');
    } finally {
      await after.destroy();
    }
  });
});
