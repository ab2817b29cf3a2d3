import type { DataSourceAccess } from '@tollgate/binding-core';
import type { InteractionTokenSealer } from './interaction-token.sealer';
import { INTERACTION_TOKEN_LIFETIME_MS } from './interaction-tokens.housekeeping';

/** Where a person's latest interaction token is kept (see the migrations). */
export interface InteractionTokens {
  remember(userId: string, channelId: string, token: string, receivedAt: Date): Promise<void>;
  /**
   * The person's latest token in the channel, if received within `maxAgeMs` — never one
   * older than Discord honours, whatever `maxAgeMs` says.
   */
  latest(userId: string, channelId: string, maxAgeMs: number): Promise<string | undefined>;
}

export class InteractionTokenRepository implements InteractionTokens {
  constructor(
    private readonly db: DataSourceAccess,
    private readonly sealer: InteractionTokenSealer,
  ) {}

  async remember(
    userId: string,
    channelId: string,
    token: string,
    receivedAt: Date,
  ): Promise<void> {
    const dataSource = await this.db();
    await dataSource.query(
      `INSERT INTO discord_interaction_tokens (user_id, channel_id, sealed_token, received_at)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id, channel_id) DO UPDATE
         SET sealed_token = EXCLUDED.sealed_token, received_at = EXCLUDED.received_at
         WHERE discord_interaction_tokens.received_at <= EXCLUDED.received_at`,
      [
        userId,
        channelId,
        this.sealer.seal(token, rowOf(userId, channelId)),
        receivedAt.toISOString(),
      ],
    );
  }

  async latest(userId: string, channelId: string, maxAgeMs: number): Promise<string | undefined> {
    const dataSource = await this.db();
    const rows: Array<{ sealed_token: Buffer }> = await dataSource.query(
      `SELECT sealed_token FROM discord_interaction_tokens
        WHERE user_id = $1 AND channel_id = $2
          AND received_at > now() - make_interval(secs => $3::double precision / 1000)`,
      [userId, channelId, Math.min(maxAgeMs, INTERACTION_TOKEN_LIFETIME_MS)],
    );
    const sealed = rows[0]?.sealed_token;
    return sealed === undefined ? undefined : this.sealer.open(sealed, rowOf(userId, channelId));
  }
}

function rowOf(userId: string, channelId: string): string {
  return `${userId}\n${channelId}`;
}
