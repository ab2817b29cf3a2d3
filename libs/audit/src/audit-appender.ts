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
 * (by an upsert) as its head is read: a second writer waits, then links onto the new head.
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
    // One round trip: creates the day's row if it is the first entry, and either way locks it
    // and reads its head (a no-op update returns the row as it stands, locked).
    const [head] = await db.query<{ head_hash: string; count: number }[]>(
      `INSERT INTO audit_days (day, head_hash, count) VALUES ($1, $2, 0)
       ON CONFLICT (day) DO UPDATE SET day = EXCLUDED.day
       RETURNING head_hash, count`,
      [day, GENESIS_HASH],
    );
    if (!head) throw new Error(`audit day ${day} could not be locked`);
    const entries = chain(day, { hash: head.head_hash, count: head.count }, byDay.get(day) ?? []);
    const last = entries[entries.length - 1];
    // The entries and the new head in one statement: the second round trip of the append.
    await db.query(
      `WITH appended AS (
         INSERT INTO audit_log
           (day, n, at, kind, session_id, call_id, who, via, arguments_hash, detail, prev_hash,
            hash)
         SELECT $1::date, e.n, e.at, e.kind, e.session_id, e.call_id, e.who, e.via,
                e.arguments_hash, e.detail, e.prev_hash, e.hash
         FROM unnest($2::int[], $3::timestamptz[], $4::text[], $5::text[], $6::text[],
                     $7::jsonb[], $8::text[], $9::text[], $10::jsonb[], $11::text[], $12::text[])
           AS e(n, at, kind, session_id, call_id, who, via, arguments_hash, detail, prev_hash,
                hash)
         ORDER BY e.n)
       UPDATE audit_days SET head_hash = $13, count = $14 WHERE day = $1::date`,
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
        last?.hash ?? head.head_hash,
        last?.n ?? head.count,
      ],
    );
  }
  return drafts.length;
}
