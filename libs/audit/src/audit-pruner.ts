import type { AuditQueryable } from './audit-appender';

export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

/** The retention asked for in `TOLLGATE_AUDIT_RETENTION_DAYS`, checked (a typo must not prune). */
export function auditRetentionDays(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_AUDIT_RETENTION_DAYS;
  const days = Number(value);
  // EU AI Act Art. 12/26(6): at least six months; a shorter setting is a mistake, not a wish.
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(days) || days < 183) {
    throw new Error(
      `TOLLGATE_AUDIT_RETENTION_DAYS must be a whole number of days, at least 183, got "${value}"`,
    );
  }
  return days;
}

/**
 * Deletes the entries of whole days older than `retentionDays` before `today` (UTC), one day
 * per transaction under that day's lock. The day's `audit_days` row stays, marked pruned,
 * with its head hash and count: the record that the day existed and how it ended survives.
 */
export async function pruneAudit(
  db: AuditQueryable & { transaction<T>(work: (tx: AuditQueryable) => Promise<T>): Promise<T> },
  retentionDays: number,
  today: Date = new Date(),
): Promise<{ days: string[]; entries: number }> {
  const cutoff = new Date(today.getTime() - retentionDays * 86_400_000).toISOString().slice(0, 10);
  const due = await db.query<{ day: string }[]>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day FROM audit_days
     WHERE day < $1::date AND NOT pruned ORDER BY day`,
    [cutoff],
  );
  let entries = 0;
  for (const { day } of due) {
    entries += await db.transaction(async (tx) => {
      await tx.query(`SELECT 1 FROM audit_days WHERE day = $1 FOR UPDATE`, [day]);
      const [deleted] = await tx.query<{ count: string }[]>(
        `WITH gone AS (DELETE FROM audit_log WHERE day = $1 RETURNING 1)
         SELECT count(*)::text AS count FROM gone`,
        [day],
      );
      await tx.query(`UPDATE audit_days SET pruned = true, pruned_at = now() WHERE day = $1`, [
        day,
      ]);
      return Number(deleted?.count ?? 0);
    });
  }
  return { days: due.map((d) => d.day), entries };
}
