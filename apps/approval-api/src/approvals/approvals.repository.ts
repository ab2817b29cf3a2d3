import type { ApprovalDecided, ApprovalRequest } from '@tollgate/protocol';
import { fromJsonbValue, toJsonbText } from '@tollgate/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import type { ApprovalRecord, Status } from './approval.view';

/** The columns an {@link ApprovalRecord} is read from (the webhook claim reads them too). */
export interface ApprovalRecordRow {
  id: string;
  client_id: string;
  status: Status;
  tool: string;
  arguments_hash: string;
  agent: ApprovalRecord['agent'];
  route: ApprovalRecord['route'];
  created_at: Date;
  decided_at: Date | null;
  decision: ApprovalRecord['decision'];
  redeemed_at: Date | null;
}

interface ApprovalRow extends ApprovalRecordRow {
  request_body: string;
  command: ApprovalRequest;
}

/** An approval with what create needs to answer a repeated Idempotency-Key. */
export interface StoredApproval {
  readonly record: ApprovalRecord;
  readonly requestBody: string;
  readonly command: ApprovalRequest;
}

export type RedeemOutcome =
  | { readonly kind: 'redeemed'; readonly record: ApprovalRecord }
  | { readonly kind: 'not_found' | 'already_redeemed' | 'not_approved' | 'arguments_mismatch' };

const COLUMNS = `id, client_id, status, tool, arguments_hash, agent, route, created_at,
  decided_at, decision, redeemed_at, request_body, command`;

/** The approval-api's read model of approvals, one row each, shared by every replica. */
export class ApprovalsRepository {
  constructor(private readonly dataSource: () => Promise<DataSource>) {}

  /**
   * Inserts the approval unless the client already used the key; either way returns the row
   * the key names, and whether this call created it.
   */
  async insertOrFind(input: {
    id: string;
    clientId: string;
    idempotencyKey: string;
    requestBody: string;
    command: ApprovalRequest;
    agent: ApprovalRecord['agent'];
    route: ApprovalRecord['route'];
  }): Promise<{ created: boolean; stored: StoredApproval }> {
    const db = await this.dataSource();
    const inserted: ApprovalRow[] = await db.query(
      `INSERT INTO approvals
         (id, client_id, idempotency_key, request_body, command, tool, arguments_hash, agent, route)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8::jsonb, $9::jsonb)
       ON CONFLICT (client_id, idempotency_key) DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        input.id,
        input.clientId,
        input.idempotencyKey,
        input.requestBody,
        // Arguments are the agent's own data: a NUL or a lone surrogate is kept, escaped.
        toJsonbText(input.command),
        input.command.tool,
        input.command.argumentsHash,
        JSON.stringify(input.agent),
        JSON.stringify(input.route),
      ],
    );
    if (inserted[0] !== undefined) return { created: true, stored: toStored(inserted[0]) };
    const found: ApprovalRow[] = await db.query(
      `SELECT ${COLUMNS} FROM approvals WHERE client_id = $1 AND idempotency_key = $2`,
      [input.clientId, input.idempotencyKey],
    );
    if (found[0] === undefined) throw new Error('an approval conflicted on its key but is gone');
    return { created: false, stored: toStored(found[0]) };
  }

  /** The client's approval; another client's is as absent as a missing one. */
  async find(clientId: string, id: string): Promise<ApprovalRecord | undefined> {
    const rows: ApprovalRow[] = await (
      await this.dataSource()
    ).query(`SELECT ${COLUMNS} FROM approvals WHERE id = $1 AND client_id = $2`, [id, clientId]);
    return rows[0] === undefined ? undefined : toApprovalRecord(rows[0]);
  }

  async findStored(clientId: string, id: string): Promise<StoredApproval | undefined> {
    const rows: ApprovalRow[] = await (
      await this.dataSource()
    ).query(`SELECT ${COLUMNS} FROM approvals WHERE id = $1 AND client_id = $2`, [id, clientId]);
    return rows[0] === undefined ? undefined : toStored(rows[0]);
  }

  /** Pending → cancelled; undefined when it was no longer pending. */
  async cancel(
    clientId: string,
    id: string,
    notify: { channel: string; payload: string },
  ): Promise<ApprovalRecord | undefined> {
    return (await this.dataSource()).transaction(async (manager) => {
      const [rows]: [ApprovalRow[], number] = await manager.query(
        `UPDATE approvals SET status = 'cancelled', decided_at = now()
         WHERE id = $1 AND client_id = $2 AND status = 'pending' RETURNING ${COLUMNS}`,
        [id, clientId],
      );
      if (rows[0] === undefined) return undefined;
      await notifyIn(manager, notify);
      return toApprovalRecord(rows[0]);
    });
  }

  /**
   * The executor's single use, decided by one conditional UPDATE: of two replicas racing,
   * PostgreSQL's row lock lets exactly one set `redeemed_at`; the other then reads why not.
   */
  async redeem(clientId: string, id: string, argumentsHash: string): Promise<RedeemOutcome> {
    const db = await this.dataSource();
    const [rows]: [ApprovalRow[], number] = await db.query(
      `UPDATE approvals SET redeemed_at = now()
       WHERE id = $1 AND client_id = $2 AND status = 'approved' AND redeemed_at IS NULL
         AND COALESCE(decision->>'finalArgumentsHash', arguments_hash) = $3
       RETURNING ${COLUMNS}`,
      [id, clientId, argumentsHash],
    );
    if (rows[0] !== undefined) return { kind: 'redeemed', record: toApprovalRecord(rows[0]) };
    const current = await this.find(clientId, id);
    if (current === undefined) return { kind: 'not_found' };
    if (current.status !== 'approved') return { kind: 'not_approved' };
    if (current.redeemedAt !== null) return { kind: 'already_redeemed' };
    return { kind: 'arguments_mismatch' };
  }

  /**
   * Applies a decision event in `manager`'s transaction, once: only a pending approval takes
   * it (a redelivery, or a decision after the agent cancelled, changes nothing). Returns the
   * updated record, or undefined when nothing changed.
   */
  async applyDecision(
    manager: EntityManager,
    event: ApprovalDecided,
  ): Promise<ApprovalRecord | undefined> {
    const [rows]: [ApprovalRow[], number] = await manager.query(
      `UPDATE approvals SET status = $3, decision = $4::jsonb, decided_at = $5
       WHERE id = $1 AND client_id = $2 AND status = 'pending' RETURNING ${COLUMNS}`,
      [
        event.approvalId,
        event.clientId,
        event.status,
        event.decision === null ? null : toJsonbText(event.decision),
        event.decidedAt,
      ],
    );
    return rows[0] === undefined ? undefined : toApprovalRecord(rows[0]);
  }
}

/** Delivered to every listener when the transaction commits, never before. */
export async function notifyIn(
  manager: EntityManager,
  notify: { channel: string; payload: string },
): Promise<void> {
  await manager.query(`SELECT pg_notify($1, $2)`, [notify.channel, notify.payload]);
}

export function toApprovalRecord(row: ApprovalRecordRow): ApprovalRecord {
  return {
    id: row.id,
    clientId: row.client_id,
    status: row.status,
    tool: row.tool,
    argumentsHash: row.arguments_hash,
    agent: row.agent,
    route: row.route,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
    decision: row.decision === null ? null : fromJsonbValue(row.decision),
    redeemedAt: row.redeemed_at,
  };
}

function toStored(row: ApprovalRow): StoredApproval {
  return {
    record: toApprovalRecord(row),
    requestBody: row.request_body,
    command: fromJsonbValue(row.command),
  };
}
