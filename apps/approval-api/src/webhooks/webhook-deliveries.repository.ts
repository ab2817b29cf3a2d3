import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DatabaseClient } from '@tollgate/service-runtime';
import type { EntityManager } from 'typeorm';
import { type ApprovalRecordRow, toApprovalRecord } from '../approvals/approvals.repository';
import type { ApprovalRecord } from '../approvals/approval.view';
import type { ApprovalApiConfig } from '../approval-api.config';
import { APPROVAL_API_CONFIG } from '../approval-api.tokens';

/** A delivery this replica claimed, with what it needs to send it. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly attempts: number;
  readonly url: string;
  readonly secret: string;
  readonly approval: ApprovalRecord;
  readonly giveUpAt: Date;
}

/** The approval's columns under their own names, but for its id (`id` is the delivery's). */
interface ClaimRow extends Omit<ApprovalRecordRow, 'id'> {
  id: string;
  attempts: number;
  give_up_at: Date;
  webhook_url: string;
  webhook_secret: string;
  approval_id: string;
}

/**
 * `webhook_deliveries`: one per decided approval of a client with a webhook, its id the
 * `Tollgate-Delivery` header of every attempt. Replicas share them by claiming due rows with
 * `FOR UPDATE SKIP LOCKED` and moving `next_at` past the attempt, so two replicas never send
 * the same attempt, and one that dies mid-attempt leaves the row due again after the lease.
 */
@Injectable()
export class WebhookDeliveries {
  constructor(
    @Inject(APPROVAL_API_CONFIG) private readonly config: ApprovalApiConfig,
    private readonly database: DatabaseClient,
  ) {}

  /** In the decision's transaction; a client without a webhook gets none. */
  async enqueue(manager: EntityManager, approvalId: string, clientId: string): Promise<void> {
    await manager.query(
      `INSERT INTO webhook_deliveries (id, approval_id, client_id, give_up_at)
       SELECT $1, $2, $3, now() + make_interval(secs => $4)
       FROM approval_clients WHERE id = $3 AND webhook_url IS NOT NULL
       ON CONFLICT (approval_id) DO NOTHING`,
      [randomUUID(), approvalId, clientId, this.config.TOLLGATE_WEBHOOK_HORIZON_S],
    );
  }

  async claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const db = await this.database.whenReady();
    const [rows]: [ClaimRow[], number] = await db.query(
      `WITH due AS (
         SELECT d.id FROM webhook_deliveries d
         WHERE d.delivered_at IS NULL AND d.abandoned_at IS NULL AND d.next_at <= now()
         ORDER BY d.next_at LIMIT $1
         FOR UPDATE SKIP LOCKED
       )
       UPDATE webhook_deliveries d SET next_at = now() + make_interval(secs => $2)
       FROM due, approvals a, approval_clients c
       WHERE d.id = due.id AND a.id = d.approval_id AND c.id = d.client_id
       RETURNING d.id, d.attempts, d.give_up_at, c.webhook_url, c.webhook_secret,
         a.id AS approval_id, a.client_id, a.status, a.tool, a.arguments_hash, a.agent, a.route,
         a.created_at, a.decided_at, a.decision, a.redeemed_at`,
      [limit, leaseMs / 1_000],
    );
    return rows.map((row) => ({
      id: row.id,
      attempts: row.attempts,
      url: row.webhook_url,
      secret: row.webhook_secret,
      giveUpAt: row.give_up_at,
      approval: toApprovalRecord({ ...row, id: row.approval_id }),
    }));
  }

  async delivered(id: string): Promise<void> {
    const db = await this.database.whenReady();
    await db.query(
      `UPDATE webhook_deliveries SET delivered_at = now(), attempts = attempts + 1, last_error = NULL
       WHERE id = $1`,
      [id],
    );
  }

  /** After a failed attempt: due again after `delayMs`, or abandoned past its 24 hours. */
  async failed(id: string, error: string, delayMs: number): Promise<'retry' | 'abandoned'> {
    const db = await this.database.whenReady();
    const [rows]: [{ abandoned: boolean }[], number] = await db.query(
      `UPDATE webhook_deliveries
       SET attempts = attempts + 1, last_error = $2,
           next_at = now() + make_interval(secs => $3),
           abandoned_at = CASE WHEN now() + make_interval(secs => $3) > give_up_at
                               THEN now() END
       WHERE id = $1 RETURNING abandoned_at IS NOT NULL AS abandoned`,
      [id, error.slice(0, 500), delayMs / 1_000],
    );
    return rows[0]?.abandoned === true ? 'abandoned' : 'retry';
  }
}
