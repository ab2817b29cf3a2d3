import type { Conversation, Person } from '@tollgate/protocol';
import type { DataSource } from 'typeorm';

/** Which grants an operator means; an absent key matches every value. */
export interface GrantFilter {
  readonly platform?: string;
  readonly workspaceId?: string;
  readonly personId?: string;
  readonly toolName?: string;
  /** `''` for grants given in chat; an approval API client's id for that client's. */
  readonly clientId?: string;
}

export interface GrantRecord {
  readonly platform: string;
  readonly workspaceId: string;
  readonly personId: string;
  readonly toolName: string;
  readonly clientId: string;
  readonly grantedBy: Person;
  readonly sessionId: string;
  readonly grantedAt: Date;
  /** X14: "Always allow" (`tool_grants`) or "Allow in this chat" (`session_grants`). */
  readonly kind: GrantKind;
  /** When an "Allow in this chat" lapses; an "Always allow" does not. */
  readonly expiresAt?: Date;
}

export type GrantKind = 'always' | 'session';

interface GrantRow {
  platform: string;
  workspace_id: string;
  person_id: string;
  tool_name: string;
  client_id: string;
  granted_by: Person;
  session_id: string;
  granted_at: Date;
  kind: GrantKind;
  expires_at: Date | null;
}

// `$n::text IS NULL` lets one statement serve every combination of filters.
const MATCHES = `($1::text IS NULL OR platform = $1)
  AND ($2::text IS NULL OR workspace_id = $2)
  AND ($3::text IS NULL OR person_id = $3)
  AND ($4::text IS NULL OR tool_name = $4)
  AND ($5::text IS NULL OR client_id = $5)`;
const COLUMNS = `platform, workspace_id, person_id, tool_name, client_id, granted_by, session_id, granted_at`;
/** Both kinds of grant in force, in one shape; a chat's session grant belongs to no client. */
const IN_FORCE = `
  SELECT 'always' AS kind, ${COLUMNS}, NULL::timestamptz AS expires_at
    FROM tool_grants WHERE revoked_at IS NULL
  UNION ALL
  SELECT 'session' AS kind, platform, workspace_id, person_id, tool_name, '' AS client_id,
         granted_by, session_id, granted_at, expires_at
    FROM session_grants WHERE revoked_at IS NULL AND expires_at > now()`;

/**
 * `tool_grants` (written by `projectAlwaysGrants`) and `session_grants` (by
 * `projectSessionGrants`, X14): the session consults them, operators list and revoke both
 * through it. A revoked grant stays as a row with `revoked_at` set, so nothing
 * that replays older answers can bring it back.
 */
export class ToolGrantsRepository {
  /** `dataSource` resolves once the database is connected and migrated. */
  constructor(private readonly dataSource: () => Promise<DataSource>) {}

  async isAlwaysAllowed(
    conversation: Conversation,
    personId: string,
    toolName: string,
    clientId = '',
  ): Promise<boolean> {
    const rows: unknown[] = await (
      await this.dataSource()
    ).query(
      `SELECT 1 FROM tool_grants
       WHERE platform = $1 AND workspace_id = $2 AND person_id = $3 AND tool_name = $4
         AND client_id = $5 AND revoked_at IS NULL`,
      [conversation.platform, conversation.workspaceId, personId, toolName, clientId],
    );
    return rows.length > 0;
  }

  async isSessionGrantInForce(
    sessionId: string,
    personId: string,
    toolName: string,
    now: Date,
  ): Promise<boolean> {
    const rows: unknown[] = await (
      await this.dataSource()
    ).query(
      `SELECT 1 FROM session_grants
       WHERE session_id = $1 AND person_id = $2 AND tool_name = $3
         AND revoked_at IS NULL AND expires_at > $4`,
      [sessionId, personId, toolName, now.toISOString()],
    );
    return rows.length > 0;
  }

  /** Grants in force that match `filter`, in a stable order. */
  async list(filter: GrantFilter): Promise<GrantRecord[]> {
    const rows: GrantRow[] = await (
      await this.dataSource()
    ).query(
      `SELECT * FROM (${IN_FORCE}) AS grants WHERE ${MATCHES}
       ORDER BY platform, workspace_id, person_id, tool_name, client_id, kind, session_id`,
      parameters(filter),
    );
    return rows.map(toRecord);
  }

  /** Revokes the grants in force that match `filter`; returns what it revoked. */
  async revoke(filter: GrantFilter): Promise<GrantRecord[]> {
    const dataSource = await this.dataSource();
    return dataSource.transaction(async (manager) => {
      const [always]: [GrantRow[], number] = await manager.query(
        `UPDATE tool_grants SET revoked_at = now() WHERE revoked_at IS NULL AND ${MATCHES}
         RETURNING 'always' AS kind, ${COLUMNS}, NULL::timestamptz AS expires_at`,
        parameters(filter),
      );
      // A session grant belongs to no client: a filter naming one leaves them all alone.
      const [session]: [GrantRow[], number] = await manager.query(
        `UPDATE session_grants SET revoked_at = now()
         WHERE revoked_at IS NULL AND expires_at > now() AND ($5::text IS NULL OR $5 = '')
           AND ($1::text IS NULL OR platform = $1) AND ($2::text IS NULL OR workspace_id = $2)
           AND ($3::text IS NULL OR person_id = $3) AND ($4::text IS NULL OR tool_name = $4)
         RETURNING 'session' AS kind, platform, workspace_id, person_id, tool_name,
                   '' AS client_id, granted_by, session_id, granted_at, expires_at`,
        parameters(filter),
      );
      return [...always, ...session].map(toRecord).sort(byKey);
    });
  }
}

function parameters(filter: GrantFilter): (string | null)[] {
  return [
    filter.platform ?? null,
    filter.workspaceId ?? null,
    filter.personId ?? null,
    filter.toolName ?? null,
    filter.clientId ?? null,
  ];
}

function toRecord(row: GrantRow): GrantRecord {
  return {
    platform: row.platform,
    workspaceId: row.workspace_id,
    personId: row.person_id,
    toolName: row.tool_name,
    clientId: row.client_id,
    grantedBy: row.granted_by,
    sessionId: row.session_id,
    grantedAt: new Date(row.granted_at),
    kind: row.kind,
    ...(row.expires_at === null ? {} : { expiresAt: new Date(row.expires_at) }),
  };
}

function byKey(a: GrantRecord, b: GrantRecord): number {
  const key = (g: GrantRecord) =>
    [g.platform, g.workspaceId, g.personId, g.toolName, g.clientId, g.kind, g.sessionId].join('\n');
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}
