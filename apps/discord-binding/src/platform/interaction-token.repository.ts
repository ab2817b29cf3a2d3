import type { DataSourceAccess } from '@tollgate/binding-core';

/** Where a person's latest interaction token is kept (see the migration). */
export interface InteractionTokens {
  remember(userId: string, channelId: string, token: string, receivedAt: Date): Promise<void>;
  /** The person's latest token in the channel, if received within `maxAgeMs`. */
  latest(userId: string, channelId: string, maxAgeMs: number): Promise<string | undefined>;
}

export class InteractionTokenRepository implements InteractionTokens {
  constructor(private readonly db: DataSourceAccess) {}

  async remember(
    userId: string,
    channelId: string,
    token: string,
    receivedAt: Date,
  ): Promise<void> {
    const dataSource = await this.db();
    await dataSource.query(
      `INSERT INTO discord_interaction_tokens (user_id, channel_id, token, received_at)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id, channel_id) DO UPDATE
         SET token = EXCLUDED.token, received_at = EXCLUDED.received_at
         WHERE discord_interaction_tokens.received_at <= EXCLUDED.received_at`,
      [userId, channelId, token, receivedAt.toISOString()],
    );
  }

  async latest(userId: string, channelId: string, maxAgeMs: number): Promise<string | undefined> {
    const dataSource = await this.db();
    const rows: Array<{ token: string }> = await dataSource.query(
      `SELECT token FROM discord_interaction_tokens
        WHERE user_id = $1 AND channel_id = $2
          AND received_at > now() - make_interval(secs => $3::double precision / 1000)`,
      [userId, channelId, maxAgeMs],
    );
    return rows[0]?.token;
  }
}
