import { queryPrepared, toJsonbArrayText } from '@tollgate/persistence';
import { dayOf, normalizeInstant } from './audit-chain';
import type { AuditDraft } from './audit-entry';

/** A connection inside the caller's transaction (a TypeORM EntityManager or QueryRunner). */
export interface AuditQueryable {
  query<T = unknown>(sql: string, parameters?: readonly unknown[]): Promise<T>;
}

/**
 * Records drafts inside the caller's transaction, so an entry exists exactly when the journal
 * events it describes do. They are inserted unchained — no position, no hashes — and take no
 * lock another writer waits on: the sealer (audit-sealer.ts) links committed entries into
 * their day's chain afterwards, in `seq` order. Holding the day's head from here to the commit
 * made every decision of a day queue behind the one before (8 094 → 952 decisions/s).
 */
export async function appendAudit(
  db: AuditQueryable,
  drafts: readonly AuditDraft[],
): Promise<number> {
  if (drafts.length === 0) return 0;
  const ats = drafts.map((d) => normalizeInstant(d.at));
  // One round trip, rows in the drafts' order so their seqs keep it; prepared, since planning
  // this join cost the server more than inserting the rows (see queryPrepared).
  await queryPrepared(
    db,
    'tollgate_audit_append',
    `INSERT INTO audit_log
       (day, at, kind, session_id, call_id, who, via, arguments_hash, detail)
     SELECT e.day, e.at, e.kind, e.session_id, e.call_id, NULLIF(w.who, 'null'::jsonb), e.via,
            e.arguments_hash, d.detail
     FROM unnest($1::date[], $2::timestamptz[], $3::text[], $4::text[], $5::text[],
                 $7::text[], $8::text[])
         WITH ORDINALITY AS e(day, at, kind, session_id, call_id, via, arguments_hash, i)
       JOIN jsonb_array_elements($6::jsonb) WITH ORDINALITY AS w(who, i) USING (i)
       JOIN jsonb_array_elements($9::jsonb) WITH ORDINALITY AS d(detail, i) USING (i)
     ORDER BY e.i`,
    [
      ats.map(dayOf),
      ats,
      drafts.map((e) => e.kind),
      drafts.map((e) => e.sessionId),
      drafts.map((e) => e.callId),
      // jsonb arrays rather than jsonb[] (see toJsonbArrayText); a JSON null `who` is stored
      // as SQL NULL, as before.
      toJsonbArrayText(drafts.map((e) => e.who)),
      drafts.map((e) => e.via),
      drafts.map((e) => e.argumentsHash),
      toJsonbArrayText(drafts.map((e) => e.detail)),
    ],
  );
  return drafts.length;
}
