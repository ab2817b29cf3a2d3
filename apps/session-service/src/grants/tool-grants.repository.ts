import type { Conversation, Person } from '@tollgate/protocol';
import type { DataSource } from 'typeorm';
import type { ToolGrants } from '../session/domain/tool-grants.port';

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
}

interface GrantRow {
  platform: string;
  workspace_id: string;
  person_id: string;
  tool_name: string;
  client_id: string;
  granted_by: Person;
  session_id: string;
  granted_at: Date;
}

// `$n::text IS NULL` lets one statement serve every combination of filters.
const MATCHES = `($1::text IS NULL OR platform = $1)
  AND ($2::text IS NULL OR workspace_id = $2)
  AND ($3::text IS NULL OR person_id = $3)
  AND ($4::text IS NULL OR tool_name = $4)
  AND ($5::text IS NULL OR client_id = $5)`;
const COLUMNS = `platform, workspace_id, person_id, tool_name, client_id, granted_by, session_id, granted_at`;

/**
 * `tool_grants` (written by `projectAlwaysGrants`): the session consults it, operators list
 * and revoke through it. A revoked grant stays as a row with `revoked_at` set, so nothing
 * that replays older answers can bring it back.
 */
export class ToolGrantsRepository implements ToolGrants {
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

  /** Grants in force that match `filter`, in a stable order. */
  async list(filter: GrantFilter): Promise<GrantRecord[]> {
    const rows: GrantRow[] = await (
      await this.dataSource()
    ).query(
      `SELECT ${COLUMNS} FROM tool_grants WHERE revoked_at IS NULL AND ${MATCHES}
       ORDER BY platform, workspace_id, person_id, tool_name, client_id`,
      parameters(filter),
    );
    return rows.map(toRecord);
  }

  /** Revokes the grants in force that match `filter`; returns what it revoked. */
  async revoke(filter: GrantFilter): Promise<GrantRecord[]> {
    const [rows]: [GrantRow[], number] = await (
      await this.dataSource()
    ).query(
      `UPDATE tool_grants SET revoked_at = now() WHERE revoked_at IS NULL AND ${MATCHES}
       RETURNING ${COLUMNS}`,
      parameters(filter),
    );
    return rows.map(toRecord).sort(byKey);
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
  };
}

function byKey(a: GrantRecord, b: GrantRecord): number {
  const key = (g: GrantRecord) =>
    [g.platform, g.workspaceId, g.personId, g.toolName, g.clientId].join('\n');
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}
