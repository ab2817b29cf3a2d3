import type { DataSource } from 'typeorm';

/** Discord honours an interaction token for 15 minutes after the interaction. */
export const INTERACTION_TOKEN_LIFETIME_MS = 15 * 60_000;

/**
 * A token Discord no longer honours is of no use to anyone, and one still honoured is worth
 * nothing to keep once that quarter hour is over: it goes then, so the table only ever holds
 * tokens of the last minutes.
 */
export async function pruneInteractionTokens(dataSource: DataSource): Promise<number> {
  const [, deleted]: [unknown[], number] = await dataSource.query(
    `DELETE FROM discord_interaction_tokens
     WHERE received_at < now() - make_interval(secs => $1::double precision / 1000)`,
    [INTERACTION_TOKEN_LIFETIME_MS],
  );
  return deleted;
}
