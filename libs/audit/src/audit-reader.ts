import { fromJsonbValue } from '@tollgate/persistence';
import type { AuditEntry, AuditWho } from './audit-entry';
import type { AuditQueryable } from './audit-appender';
import type { UnsealedRow } from './audit-sealer';

/** A connection the reader may open a transaction on (a TypeORM QueryRunner). */
export interface AuditSession extends AuditQueryable {
  startTransaction(): Promise<void>;
  commitTransaction(): Promise<void>;
  rollbackTransaction(): Promise<void>;
}

export interface DayRange {
  /** `YYYY-MM-DD`, inclusive. */
  readonly since?: string;
  /** `YYYY-MM-DD`, inclusive. */
  readonly until?: string;
}

/** A sealed entry: what the sealer read, with the position and hashes it gave it. */
interface Row extends UnsealedRow {
  n: number;
  prev_hash: string;
  hash: string;
}

const BATCH = 500;

/**
 * Every sealed entry of the days in range, in chain order (day, then position), through a
 * server-side cursor fetched in batches: memory stays that of one batch however many
 * entries there are. Runs in a read-only transaction of its own (the cursor's lifetime).
 * Entries not linked yet (audit-sealer.ts) have no position: seal first to include them.
 */
export async function* readAudit(db: AuditSession, range: DayRange): AsyncGenerator<AuditEntry> {
  await db.startTransaction();
  let done = false;
  try {
    await db.query(`SET TRANSACTION READ ONLY`);
    await db.query(
      `DECLARE audit_export NO SCROLL CURSOR FOR
       SELECT seq::text AS seq, to_char(day, 'YYYY-MM-DD') AS day, n, at, kind, session_id,
              call_id, who, via, arguments_hash, detail, prev_hash, hash
       FROM audit_log
       WHERE hash IS NOT NULL
         AND ($1::date IS NULL OR day >= $1::date) AND ($2::date IS NULL OR day <= $2::date)
       ORDER BY day, n`,
      [range.since ?? null, range.until ?? null],
    );
    for (;;) {
      const rows = await db.query<Row[]>(`FETCH ${BATCH} FROM audit_export`);
      for (const row of rows) yield entryOf(row);
      if (rows.length < BATCH) break;
    }
    await db.query(`CLOSE audit_export`);
    done = true;
    await db.commitTransaction();
  } finally {
    if (!done) await db.rollbackTransaction();
  }
}

/** The recorded heads of the days in range (pruned days included). */
export async function readAuditDays(
  db: AuditQueryable,
  range: DayRange,
): Promise<{ day: string; headHash: string; count: number; pruned: boolean }[]> {
  const rows = await db.query<{ day: string; head_hash: string; count: number; pruned: boolean }[]>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, head_hash, count, pruned FROM audit_days
     WHERE ($1::date IS NULL OR day >= $1::date) AND ($2::date IS NULL OR day <= $2::date)
     ORDER BY day`,
    [range.since ?? null, range.until ?? null],
  );
  return rows.map((r) => ({
    day: r.day,
    headHash: r.head_hash,
    count: r.count,
    pruned: r.pruned,
  }));
}

function entryOf(row: Row): AuditEntry {
  return {
    seq: row.seq,
    day: row.day,
    n: row.n,
    at: new Date(row.at).toISOString(),
    kind: row.kind,
    sessionId: row.session_id,
    callId: row.call_id,
    who: row.who === null ? null : fromJsonbValue<AuditWho>(row.who),
    via: row.via,
    argumentsHash: row.arguments_hash,
    detail: fromJsonbValue<Record<string, unknown>>(row.detail),
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}
