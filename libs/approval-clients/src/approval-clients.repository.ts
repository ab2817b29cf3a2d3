import { PLATFORMS, type Platform } from '@tollgate/protocol';
import type { DataSource } from 'typeorm';
import type { AllowedConversation, ApprovalClient } from './approval-client';
import { newClientId, newWebhookSecret } from './approval-client';
import { issueKey } from './client-key';

export interface NewClient {
  readonly name: string;
  readonly platform: Platform;
  readonly workspaceId: string;
  readonly conversation: AllowedConversation;
  readonly approvers: readonly string[];
  readonly onBehalfOf?: string | undefined;
  readonly webhookUrl?: string | undefined;
}

export interface ClientChanges {
  readonly name?: string | undefined;
  readonly addConversations?: readonly AllowedConversation[];
  readonly addApprovers?: readonly string[];
  readonly onBehalfOf?: string | undefined;
  readonly webhookUrl?: string | undefined;
}

/** What a request's key resolves to: the client, and the hash its secret must match. */
export interface KeyRecord {
  readonly client: ApprovalClient;
  readonly keyHash: string;
}

interface ClientRow {
  id: string;
  name: string;
  platform: string;
  workspace_id: string;
  conversations: AllowedConversation[];
  approvers: string[];
  on_behalf_of: string | null;
  webhook_url: string | null;
  webhook_secret: string | null;
  created_at: Date;
  revoked_at: Date | null;
  key_hash: string;
}

const COLUMNS = `id, name, platform, workspace_id, conversations, approvers, on_behalf_of,
  webhook_url, webhook_secret, created_at, revoked_at, key_hash`;

/** `approval_clients`: written by the operator CLI, read by every approval-api request. */
export class ApprovalClientsRepository {
  constructor(private readonly dataSource: () => Promise<DataSource>) {}

  /** Creates the client and returns its key, which is stored only as a hash. */
  async create(input: NewClient): Promise<{ client: ApprovalClient; key: string }> {
    const issued = await issueKey();
    const rows: ClientRow[] = await (
      await this.dataSource()
    ).query(
      `INSERT INTO approval_clients
         (id, name, key_id, key_hash, platform, workspace_id, conversations, approvers,
          on_behalf_of, webhook_url, webhook_secret)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10, $11)
       RETURNING ${COLUMNS}`,
      [
        newClientId(),
        input.name,
        issued.keyId,
        issued.keyHash,
        input.platform,
        input.workspaceId,
        JSON.stringify([input.conversation]),
        JSON.stringify(unique(input.approvers)),
        input.onBehalfOf ?? null,
        input.webhookUrl ?? null,
        input.webhookUrl === undefined ? null : newWebhookSecret(),
      ],
    );
    const [row] = rows;
    if (row === undefined) throw new Error('the new client was not returned');
    return { client: toClient(row), key: issued.key };
  }

  async list(): Promise<ApprovalClient[]> {
    const rows: ClientRow[] = await (
      await this.dataSource()
    ).query(`SELECT ${COLUMNS} FROM approval_clients ORDER BY created_at, id`);
    return rows.map(toClient);
  }

  async find(id: string): Promise<ApprovalClient | undefined> {
    const rows: ClientRow[] = await (
      await this.dataSource()
    ).query(`SELECT ${COLUMNS} FROM approval_clients WHERE id = $1`, [id]);
    return rows[0] === undefined ? undefined : toClient(rows[0]);
  }

  /** The client a key id names, revoked or not; the caller checks the secret and revocation. */
  async findByKeyId(keyId: string): Promise<KeyRecord | undefined> {
    const rows: ClientRow[] = await (
      await this.dataSource()
    ).query(`SELECT ${COLUMNS} FROM approval_clients WHERE key_id = $1`, [keyId]);
    const row = rows[0];
    return row === undefined ? undefined : { client: toClient(row), keyHash: row.key_hash };
  }

  /** Adds conversations and approvers (never removes: a pending approval may name them). */
  async update(id: string, changes: ClientChanges): Promise<ApprovalClient | undefined> {
    const current = await this.find(id);
    if (current === undefined) return undefined;
    const conversations = [...current.conversations];
    for (const added of changes.addConversations ?? []) {
      if (
        !conversations.some((c) => c.channelId === added.channelId && c.threadId === added.threadId)
      )
        conversations.push(added);
    }
    const approvers = unique([...current.approvers, ...(changes.addApprovers ?? [])]);
    const webhookSecret =
      changes.webhookUrl === undefined
        ? current.webhookSecret
        : (current.webhookSecret ?? newWebhookSecret());
    const [rows]: [ClientRow[], number] = await (
      await this.dataSource()
    ).query(
      `UPDATE approval_clients
       SET name = $2, conversations = $3::jsonb, approvers = $4::jsonb, on_behalf_of = $5,
           webhook_url = $6, webhook_secret = $7
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        id,
        changes.name ?? current.name,
        JSON.stringify(conversations),
        JSON.stringify(approvers),
        changes.onBehalfOf ?? current.onBehalfOf,
        changes.webhookUrl ?? current.webhookUrl,
        webhookSecret,
      ],
    );
    return rows[0] === undefined ? undefined : toClient(rows[0]);
  }

  /** Every replica reads the row on each request, so this takes effect at once. */
  async revoke(id: string): Promise<ApprovalClient | undefined> {
    const [rows]: [ClientRow[], number] = await (
      await this.dataSource()
    ).query(
      `UPDATE approval_clients SET revoked_at = COALESCE(revoked_at, now())
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0] === undefined ? undefined : toClient(rows[0]);
  }

  /** A new key for a client that is not revoked; the old one stops working at once. */
  async rotate(id: string): Promise<{ client: ApprovalClient; key: string } | undefined> {
    const issued = await issueKey();
    const [rows]: [ClientRow[], number] = await (
      await this.dataSource()
    ).query(
      `UPDATE approval_clients SET key_id = $2, key_hash = $3, rotated_at = now()
       WHERE id = $1 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
      [id, issued.keyId, issued.keyHash],
    );
    return rows[0] === undefined ? undefined : { client: toClient(rows[0]), key: issued.key };
  }
}

function toClient(row: ClientRow): ApprovalClient {
  const platform = PLATFORMS.find((p) => p === row.platform);
  if (platform === undefined)
    throw new Error(`client ${row.id} has unknown platform ${row.platform}`);
  return {
    id: row.id,
    name: row.name,
    platform,
    workspaceId: row.workspace_id,
    conversations: row.conversations,
    approvers: row.approvers,
    onBehalfOf: row.on_behalf_of,
    webhookUrl: row.webhook_url,
    webhookSecret: row.webhook_secret,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
