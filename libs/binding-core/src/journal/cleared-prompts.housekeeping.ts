import type { DataSource } from 'typeorm';

/**
 * A cleared prompt's row only serves to drop outputs for it that come later, and none can be
 * redelivered once the output stream has aged it out (TOLLGATE_OUT_MAX_AGE_DAYS). A day past
 * that the row goes; anything newer the session still says about the call (a late click's
 * Expired update) then meets an untracked prompt and becomes a tombstone, which shows
 * nothing either. Pending prompts are never pruned, and the prompt_events journal is kept.
 */
export async function pruneClearedPrompts(
  dataSource: DataSource,
  outMaxAgeDays: number,
): Promise<number> {
  const [, deleted]: [unknown[], number] = await dataSource.query(
    `DELETE FROM prompts
     WHERE status = 'cleared' AND lease_owner IS NULL
       AND updated_at < now() - make_interval(days => $1)`,
    [outMaxAgeDays + 1],
  );
  return deleted;
}
