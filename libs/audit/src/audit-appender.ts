import { toJsonbText } from '@tollgate/persistence';
import { chain, dayOf, GENESIS_HASH, normalizeInstant } from './audit-chain';
import type { AuditDraft } from './audit-entry';

/** A connection inside the caller's transaction (a TypeORM EntityManager or QueryRunner). */
export interface AuditQueryable {
  query<T = unknown>(sql: string, parameters?: readonly unknown[]): Promise<T>;
}

/**
 * Appends drafts to their days' chains inside the caller's transaction, so an entry exists
 * exactly when the journal events it describes do. The day's `audit_days` row is locked
 * (FOR UPDATE) before its head is read: a second writer waits, then links onto the new head.
 * Days are locked in ascending order so two writers cannot deadlock.
 */
export async function appendAudit(
  db: AuditQueryable,
  drafts: readonly AuditDraft[],
): Promise<number> {
  if (drafts.length === 0) return 0;
  const byDay = new Map<string, AuditDraft[]>();
  for (const draft of drafts) {
    const at = normalizeInstant(draft.at);
    const day = dayOf(at);
    byDay.set(day, [...(byDay.get(day) ?? []), { ...draft, at }]);
  }
  for (const day of [...byDay.keys()].sort()) {
    await db.query(
      `INSERT INTO audit_days (day, head_hash, count) VALUES ($1, $2, 0)
       ON CONFLICT (day) DO NOTHING`,
      [day, GENESIS_HASH],
    );
    const [head] = await db.query<{ head_hash: string; count: number }[]>(
      `SELECT head_hash, count FROM audit_days WHERE day = $1 FOR UPDATE`,
      [day],
    );
    if (!head) throw new Error(`audit day ${day} vanished while appending`);
    const entries = chain(day, { hash: head.head_hash, count: head.count }, byDay.get(day) ?? []);
    await db.query(
      `INSERT INTO audit_log
         (day, n, at, kind, session_id, call_id, who, via, arguments_hash, detail, prev_hash, hash)
       SELECT $1::date, e.n, e.at, e.kind, e.session_id, e.call_id, e.who, e.via, e.arguments_hash,
              e.detail, e.prev_hash, e.hash
       FROM unnest($2::int[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::jsonb[],
                   $8::text[], $9::text[], $10::jsonb[], $11::text[], $12::text[])
         AS e(n, at, kind, session_id, call_id, who, via, arguments_hash, detail, prev_hash, hash)
       ORDER BY e.n`,
      [
        day,
        entries.map((e) => e.n),
        entries.map((e) => e.at),
        entries.map((e) => e.kind),
        entries.map((e) => e.sessionId),
        entries.map((e) => e.callId),
        entries.map((e) => (e.who === null ? null : toJsonbText(e.who))),
        entries.map((e) => e.via),
        entries.map((e) => e.argumentsHash),
        entries.map((e) => toJsonbText(e.detail)),
        entries.map((e) => e.prevHash),
        entries.map((e) => e.hash),
      ],
    );
    const last = entries[entries.length - 1];
    await db.query(`UPDATE audit_days SET head_hash = $2, count = $3 WHERE day = $1`, [
      day,
      last?.hash ?? head.head_hash,
      last?.n ?? head.count,
    ]);
  }
  return drafts.length;
}
