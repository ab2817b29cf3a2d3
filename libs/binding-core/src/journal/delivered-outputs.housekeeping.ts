import type { DataSource } from 'typeorm';

/**
 * A delivered text or notice is remembered only to drop a redelivery of the same output, and
 * nothing can be redelivered once the output stream has aged it out (TOLLGATE_OUT_MAX_AGE_DAYS).
 * A day past that, the row can go. Rows never delivered (a claim in progress, or one whose
 * replica died) are kept: their output may still come back.
 */
export async function pruneDeliveredOutputs(
  dataSource: DataSource,
  outMaxAgeDays: number,
): Promise<number> {
  const [, deleted]: [unknown[], number] = await dataSource.query(
    `DELETE FROM delivered_outputs
     WHERE delivered_at IS NOT NULL AND delivered_at < now() - make_interval(days => $1)`,
    [outMaxAgeDays + 1],
  );
  return deleted;
}
