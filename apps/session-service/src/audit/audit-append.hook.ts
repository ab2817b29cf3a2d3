import { appendAudit, type AuditQueryable } from '@tollgate/audit';
import type { JournaledEvent } from '@tollgate/session-read-model';
import { auditEntriesOf } from './audit-entry.mapper';

/** Appends the audit entries of journal events being committed, in the same transaction. */
export async function appendAuditFor(
  db: AuditQueryable,
  events: readonly (JournaledEvent & { readonly sessionId: string })[],
): Promise<number> {
  return appendAudit(
    db,
    events.flatMap((e) => auditEntriesOf(e.sessionId, e)),
  );
}
