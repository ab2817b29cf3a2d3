import { appendAudit } from '@tollgate/audit';
import { type GrantRecord, grantEndEntry } from '@tollgate/session-read-model';
import type { Person } from '@tollgate/protocol';
import type { DataSource } from 'typeorm';

interface EndedRow {
  kind: 'always' | 'session';
  platform: string;
  workspace_id: string;
  person_id: string;
  tool_name: string;
  client_id: string;
  granted_by: Person;
  session_id: string;
  granted_at: Date;
  expires_at: Date | null;
  scope: Record<string, Record<string, unknown>> | null;
  uses_left: number | null;
  uses_granted: number | null;
}

/**
 * G4: each grant that stopped covering on its own since the last sweep — lapsed at its
 * `expires_at`, or its last use taken — becomes one `grant_expired` audit entry, in the
 * transaction that marks it recorded. The grant stopped at its instant (the session reads it
 * at every decision); this only records that it did, so the leader runs it with its other
 * housekeeping. A revoked grant is recorded by its revocation instead.
 */
export async function auditEndedGrants(dataSource: DataSource): Promise<number> {
  return dataSource.transaction(async (manager) => {
    const [always]: [EndedRow[], number] = await manager.query(
      `UPDATE tool_grants SET end_audited_at = now()
       WHERE end_audited_at IS NULL AND revoked_at IS NULL
         AND (expires_at <= now() OR uses_left = 0)
       RETURNING 'always' AS kind, platform, workspace_id, person_id, tool_name, client_id,
                 granted_by, session_id, granted_at, expires_at, scope, uses_left, uses_granted`,
    );
    const [session]: [EndedRow[], number] = await manager.query(
      `UPDATE session_grants SET end_audited_at = now()
       WHERE end_audited_at IS NULL AND revoked_at IS NULL AND expires_at <= now()
       RETURNING 'session' AS kind, platform, workspace_id, person_id, tool_name,
                 '' AS client_id, granted_by, session_id, granted_at, expires_at,
                 NULL::jsonb AS scope, NULL::int AS uses_left, NULL::int AS uses_granted`,
    );
    const [{ now }] = await manager.query<{ now: Date }[]>(`SELECT now() AS now`);
    const at = new Date(now).toISOString();
    const ended = [...always, ...session];
    await appendAudit(
      manager,
      ended.map((row) => {
        const grant = recordOf(row);
        const lapsed = grant.expiresAt !== undefined && grant.expiresAt <= new Date(now);
        return grantEndEntry('grant_expired', grant, at, null, {
          reason: lapsed ? 'lapsed' : 'used_up',
        });
      }),
    );
    return ended.length;
  });
}

function recordOf(row: EndedRow): GrantRecord {
  return {
    kind: row.kind,
    platform: row.platform,
    workspaceId: row.workspace_id,
    personId: row.person_id,
    toolName: row.tool_name,
    clientId: row.client_id,
    grantedBy: row.granted_by,
    sessionId: row.session_id,
    grantedAt: new Date(row.granted_at),
    ...(row.expires_at === null ? {} : { expiresAt: new Date(row.expires_at) }),
    ...(row.scope === null ? {} : { scope: row.scope }),
    ...(row.uses_left === null ? {} : { usesLeft: row.uses_left }),
    ...(row.uses_granted === null ? {} : { usesGranted: row.uses_granted }),
  };
}
