import { fromJsonbValue } from '@tollgate/persistence';
import { chain, GENESIS_HASH } from './audit-chain';
import type { AuditDraft, AuditKind, AuditVia, AuditWho } from './audit-entry';
import type { AuditQueryable } from './audit-appender';

/** A pool the sealer opens its own short transactions on (a TypeORM DataSource). */
export interface AuditDatabase extends AuditQueryable {
  transaction<T>(work: (tx: AuditQueryable) => Promise<T>): Promise<T>;
}

/** An entry as committed, before the sealer links it. */
export interface UnsealedRow {
  seq: string;
  day: string;
  at: Date;
  kind: AuditKind;
  session_id: string;
  call_id: string | null;
  who: AuditWho | null;
  via: AuditVia | null;
  arguments_hash: string | null;
  detail: Record<string, unknown>;
}

export const DEFAULT_SEAL_BATCH = 1_000;

/**
 * Links every committed, unchained entry into its day's chain, in `seq` order, a batch per
 * transaction: position, previous hash and hash, and the day's head in `audit_days`.
 * Any process may call it at any time (the leader every second, the CLI before it exports or
 * verifies): a transaction-scoped advisory lock, one per schema, lets one sealer at a time
 * read the unchained entries, so two never link the same entry or fork a day; the head row's
 * lock and `UNIQUE (day, n)` would refuse a fork even without it. An entry committed and not
 * yet sealed when its process died is sealed by the next call, wherever it runs.
 * Resolves with how many entries it sealed.
 */
export async function sealAudit(
  db: AuditDatabase,
  batch: number = DEFAULT_SEAL_BATCH,
): Promise<number> {
  let sealed = 0;
  for (;;) {
    const count = await db.transaction((tx) => sealBatch(tx, batch));
    sealed += count;
    if (count < batch) return sealed;
  }
}

/** How many committed entries are not linked yet (what `audit verify` reports as pending). */
export async function unsealedAuditCount(db: AuditQueryable): Promise<number> {
  const [row] = await db.query<{ count: string }[]>(
    `SELECT count(*)::text AS count FROM audit_log WHERE hash IS NULL`,
  );
  return Number(row?.count ?? 0);
}

async function sealBatch(tx: AuditQueryable, batch: number): Promise<number> {
  // Taken before the read below, whose snapshot then includes every earlier sealer's commit.
  await tx.query(
    `SELECT pg_advisory_xact_lock(hashtextextended('tollgate.audit_seal:' || current_schema(), 0))`,
  );
  // Ordered by the column, not the text alias of the same name ('10' < '2').
  const rows = await tx.query<UnsealedRow[]>(
    `SELECT seq::text AS seq, to_char(day, 'YYYY-MM-DD') AS day, at, kind, session_id, call_id,
            who, via, arguments_hash, detail
     FROM audit_log WHERE hash IS NULL ORDER BY audit_log.seq LIMIT $1`,
    [batch],
  );
  const byDay = new Map<string, UnsealedRow[]>();
  for (const row of rows) byDay.set(row.day, [...(byDay.get(row.day) ?? []), row]);
  for (const day of [...byDay.keys()].sort()) {
    const dayRows = byDay.get(day) ?? [];
    // Creates the day's row on its first entry, and either way locks it and reads its head.
    const [head] = await tx.query<{ head_hash: string; count: number }[]>(
      `INSERT INTO audit_days (day, head_hash, count) VALUES ($1, $2, 0)
       ON CONFLICT (day) DO UPDATE SET day = EXCLUDED.day
       RETURNING head_hash, count`,
      [day, GENESIS_HASH],
    );
    if (!head) throw new Error(`audit day ${day} could not be locked`);
    // Hashed as read back from the database: exactly what `audit verify` will recompute.
    const entries = chain(day, { hash: head.head_hash, count: head.count }, dayRows.map(draftOf));
    const last = entries[entries.length - 1];
    const [updated] = await tx.query<{ count: string }[]>(
      `WITH linked AS (
         UPDATE audit_log AS l SET n = e.n, prev_hash = e.prev_hash, hash = e.hash
         FROM unnest($2::bigint[], $3::int[], $4::text[], $5::text[])
           AS e(seq, n, prev_hash, hash)
         WHERE l.seq = e.seq AND l.hash IS NULL
         RETURNING 1),
       head AS (UPDATE audit_days SET head_hash = $6, count = $7 WHERE day = $1::date)
       SELECT count(*)::text AS count FROM linked`,
      [
        day,
        dayRows.map((r) => r.seq),
        entries.map((e) => e.n),
        entries.map((e) => e.prevHash),
        entries.map((e) => e.hash),
        last?.hash ?? head.head_hash,
        last?.n ?? head.count,
      ],
    );
    if (Number(updated?.count) !== entries.length) {
      // Someone linked one of these meanwhile: roll the whole batch back rather than fork.
      throw new Error(`audit day ${day}: entries were sealed by another writer; retry`);
    }
  }
  return rows.length;
}

function draftOf(row: UnsealedRow): AuditDraft {
  return {
    at: new Date(row.at).toISOString(),
    kind: row.kind,
    sessionId: row.session_id,
    callId: row.call_id,
    who: row.who === null ? null : fromJsonbValue<AuditWho>(row.who),
    via: row.via,
    argumentsHash: row.arguments_hash,
    detail: fromJsonbValue<Record<string, unknown>>(row.detail),
  };
}
