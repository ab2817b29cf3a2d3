import type { Conversation, Person } from '@tollgate/protocol';
import { appendAudit, type AuditDraft, type AuditWho } from '@tollgate/audit';
import type { DataSource } from 'typeorm';

/** G3: a person's "Always allow" for a tool as it stands, for the session to check and spend. */
export interface AlwaysGrantInForce {
  /** When it was given: a claim names it, so a grant given anew in between is not spent. */
  readonly grantedAt: string;
  readonly scope?: Record<string, Record<string, unknown>>;
  /** Absent: no limit on uses. */
  readonly usesLeft?: number;
  readonly expiresAt?: string;
}

/**
 * A connection to read through: a decision's own transaction, so a decision never holds a
 * second pooled connection for a grant (D2). Absent, the repository reads from the pool.
 */
export interface GrantConnection {
  query<T = unknown>(sql: string, parameters?: unknown[]): Promise<T>;
}

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
  /** When an "Allow in this chat" lapses, or an "Always allow" given with a ttl (G3). */
  readonly expiresAt?: Date;
  /** G3: the arguments an "Always allow" covers, in the policy's form; absent, any. */
  readonly scope?: Record<string, Record<string, unknown>>;
  /** G3: uses left and given, for an "Always allow" given with a number of uses. */
  readonly usesLeft?: number;
  readonly usesGranted?: number;
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
  scope: Record<string, Record<string, unknown>> | null;
  uses_left: number | null;
  uses_granted: number | null;
}

// `$n::text IS NULL` lets one statement serve every combination of filters.
const MATCHES = `($1::text IS NULL OR platform = $1)
  AND ($2::text IS NULL OR workspace_id = $2)
  AND ($3::text IS NULL OR person_id = $3)
  AND ($4::text IS NULL OR tool_name = $4)
  AND ($5::text IS NULL OR client_id = $5)`;
const COLUMNS = `platform, workspace_id, person_id, tool_name, client_id, granted_by, session_id, granted_at`;
/** Both kinds of grant in force, in one shape; a chat's session grant belongs to no client. */
const ALWAYS_COLUMNS = `${COLUMNS}, expires_at, scope, uses_left, uses_granted`;
/** G3: an "Always allow" stops covering when revoked, lapsed or used up, whichever first. */
const ALWAYS_IN_FORCE = `revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
  AND (uses_left IS NULL OR uses_left > 0)`;
const IN_FORCE = `
  SELECT 'always' AS kind, ${ALWAYS_COLUMNS}
    FROM tool_grants WHERE ${ALWAYS_IN_FORCE}
  UNION ALL
  SELECT 'session' AS kind, platform, workspace_id, person_id, tool_name, '' AS client_id,
         granted_by, session_id, granted_at, expires_at, NULL::jsonb, NULL::int, NULL::int
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
    connection?: GrantConnection,
  ): Promise<boolean> {
    // A limited grant (G3) covers only through `alwaysGrant`, which checks and spends it.
    const rows = await (
      await this.on(connection)
    ).query<unknown[]>(
      `SELECT 1 FROM tool_grants
       WHERE platform = $1 AND workspace_id = $2 AND person_id = $3 AND tool_name = $4
         AND client_id = $5 AND revoked_at IS NULL
         AND scope IS NULL AND uses_left IS NULL AND expires_at IS NULL`,
      [conversation.platform, conversation.workspaceId, personId, toolName, clientId],
    );
    return rows.length > 0;
  }

  async alwaysGrant(
    conversation: Conversation,
    personId: string,
    toolName: string,
    now: Date,
    connection?: GrantConnection,
    clientId = '',
  ): Promise<AlwaysGrantInForce | undefined> {
    const [row] = await (
      await this.on(connection)
    ).query<
      {
        granted_at: Date;
        scope: AlwaysGrantInForce['scope'] | null;
        uses_left: number | null;
        expires_at: Date | null;
      }[]
    >(
      `SELECT granted_at, scope, uses_left, expires_at FROM tool_grants
       WHERE platform = $1 AND workspace_id = $2 AND person_id = $3 AND tool_name = $4
         AND client_id = $6 AND revoked_at IS NULL
         AND (expires_at IS NULL OR expires_at > $5) AND (uses_left IS NULL OR uses_left > 0)`,
      [
        conversation.platform,
        conversation.workspaceId,
        personId,
        toolName,
        now.toISOString(),
        clientId,
      ],
    );
    if (!row) return undefined;
    return {
      grantedAt: new Date(row.granted_at).toISOString(),
      ...(row.scope === null ? {} : { scope: row.scope }),
      ...(row.uses_left === null ? {} : { usesLeft: row.uses_left }),
      ...(row.expires_at === null ? {} : { expiresAt: new Date(row.expires_at).toISOString() }),
    };
  }

  async isSessionGrantInForce(
    sessionId: string,
    personId: string,
    toolName: string,
    now: Date,
    connection?: GrantConnection,
  ): Promise<boolean> {
    const rows = await (
      await this.on(connection)
    ).query<unknown[]>(
      `SELECT 1 FROM session_grants
       WHERE session_id = $1 AND person_id = $2 AND tool_name = $3
         AND revoked_at IS NULL AND expires_at > $4`,
      [sessionId, personId, toolName, now.toISOString()],
    );
    return rows.length > 0;
  }

  private async on(connection: GrantConnection | undefined): Promise<GrantConnection> {
    return connection ?? (await this.dataSource());
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

  /**
   * Revokes the grants in force that match `filter`; returns what it revoked. G4: each
   * revocation is a `grant_revoked` audit entry by `actor`, in the same transaction.
   */
  async revoke(filter: GrantFilter, actor: AuditWho | null = null): Promise<GrantRecord[]> {
    const dataSource = await this.dataSource();
    return dataSource.transaction(async (manager) => {
      const [always]: [GrantRow[], number] = await manager.query(
        `UPDATE tool_grants SET revoked_at = now() WHERE ${ALWAYS_IN_FORCE} AND ${MATCHES}
         RETURNING 'always' AS kind, ${ALWAYS_COLUMNS}`,
        parameters(filter),
      );
      // A session grant belongs to no client: a filter naming one leaves them all alone.
      const [session]: [GrantRow[], number] = await manager.query(
        `UPDATE session_grants SET revoked_at = now()
         WHERE revoked_at IS NULL AND expires_at > now() AND ($5::text IS NULL OR $5 = '')
           AND ($1::text IS NULL OR platform = $1) AND ($2::text IS NULL OR workspace_id = $2)
           AND ($3::text IS NULL OR person_id = $3) AND ($4::text IS NULL OR tool_name = $4)
         RETURNING 'session' AS kind, platform, workspace_id, person_id, tool_name,
                   '' AS client_id, granted_by, session_id, granted_at, expires_at,
                   NULL::jsonb AS scope, NULL::int AS uses_left, NULL::int AS uses_granted`,
        parameters(filter),
      );
      const revoked = [...always, ...session].map(toRecord).sort(byKey);
      const [{ now }] = await manager.query<{ now: Date }[]>(`SELECT now() AS now`);
      await appendAudit(
        manager,
        revoked.map((g) => grantEndEntry('grant_revoked', g, new Date(now).toISOString(), actor)),
      );
      return revoked;
    });
  }
}

/** G4: a grant that stopped (revoked, lapsed, used up) as an audit entry about its owner's grant. */
export function grantEndEntry(
  kind: 'grant_revoked' | 'grant_expired',
  grant: GrantRecord,
  at: string,
  who: AuditWho | null,
  detail: Record<string, unknown> = {},
): AuditDraft {
  return {
    at,
    kind,
    sessionId: grant.sessionId,
    callId: null,
    who,
    via: null,
    argumentsHash: null,
    detail: {
      grant: grant.kind,
      owner: grant.personId,
      platform: grant.platform,
      workspaceId: grant.workspaceId,
      tool: grant.toolName,
      grantedAt: grant.grantedAt.toISOString(),
      ...(grant.clientId === '' ? {} : { clientId: grant.clientId }),
      ...(grant.scope ? { scope: grant.scope } : {}),
      ...(grant.usesLeft === undefined ? {} : { usesLeft: grant.usesLeft }),
      ...(grant.expiresAt ? { expiresAt: grant.expiresAt.toISOString() } : {}),
      ...detail,
    },
  };
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
    ...(row.scope === null ? {} : { scope: row.scope }),
    ...(row.uses_left === null ? {} : { usesLeft: row.uses_left }),
    ...(row.uses_granted === null ? {} : { usesGranted: row.uses_granted }),
  };
}

function byKey(a: GrantRecord, b: GrantRecord): number {
  const key = (g: GrantRecord) =>
    [g.platform, g.workspaceId, g.personId, g.toolName, g.clientId, g.kind, g.sessionId].join('\n');
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}
