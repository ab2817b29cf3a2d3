import { randomUUID } from 'node:crypto';
import type { MessageRef } from '../platform-adapter.port';
import type { DataSourceAccess } from './data-source-access';
import type {
  DeliveredOutputs,
  DeliveryClaim,
  DeliveryClaimRequest,
  DeliveryLease,
} from './delivered-outputs.port';

interface DeliveryRow {
  delivered: boolean;
  lease_owner: string | null;
  claim_id: string | null;
  leased: boolean;
  lease_remaining_ms: number | null;
}

/** {@link DeliveredOutputs} in the binding's schema; leases as for prompts (clock_timestamp). */
export class DeliveredOutputsRepository implements DeliveredOutputs {
  constructor(private readonly db: DataSourceAccess) {}

  async claim(request: DeliveryClaimRequest): Promise<DeliveryClaim> {
    const dataSource = await this.db();
    return dataSource.transaction(async (manager): Promise<DeliveryClaim> => {
      await manager.query(
        `INSERT INTO delivered_outputs (output_id, kind) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
        [request.outputId, request.kind],
      );
      const [row]: DeliveryRow[] = await manager.query(
        `SELECT delivered_at IS NOT NULL AS delivered, lease_owner, claim_id,
                COALESCE(lease_until > clock_timestamp(), false) AS leased,
                CEIL(EXTRACT(EPOCH FROM (lease_until - clock_timestamp())) * 1000)::int
                  AS lease_remaining_ms
         FROM delivered_outputs WHERE output_id = $1
         FOR UPDATE`,
        [request.outputId],
      );
      if (row === undefined) throw new Error(`delivered_outputs lost row ${request.outputId}`);
      if (row.delivered) return { kind: 'delivered' };
      if (row.leased) {
        return {
          kind: 'leased',
          owner: row.lease_owner ?? 'unknown',
          retryAfterMs: Math.max(1, row.lease_remaining_ms ?? 1),
        };
      }
      const lease: DeliveryLease = { outputId: request.outputId, claimId: randomUUID() };
      await manager.query(
        `UPDATE delivered_outputs
         SET lease_owner = $2,
             lease_until = clock_timestamp() + $3::int * interval '1 millisecond',
             claim_id = $4
         WHERE output_id = $1`,
        [request.outputId, request.owner, request.leaseMs, lease.claimId],
      );
      return { kind: 'claimed', lease, retry: row.claim_id !== null };
    });
  }

  async complete(lease: DeliveryLease, messageRef?: MessageRef): Promise<boolean> {
    const dataSource = await this.db();
    const [row]: { updated: number }[] = await dataSource.query(
      `WITH done AS (
         UPDATE delivered_outputs
         SET delivered_at = now(), message_ref = $3, lease_owner = NULL, lease_until = NULL
         WHERE output_id = $1 AND claim_id = $2 AND delivered_at IS NULL
         RETURNING 1)
       SELECT count(*)::int AS updated FROM done`,
      [lease.outputId, lease.claimId, messageRef === undefined ? null : JSON.stringify(messageRef)],
    );
    return (row?.updated ?? 0) > 0;
  }

  async release(lease: DeliveryLease, holdMs = 0): Promise<void> {
    const dataSource = await this.db();
    await dataSource.query(
      holdMs > 0
        ? `UPDATE delivered_outputs
           SET lease_until = clock_timestamp() + $3::int * interval '1 millisecond'
           WHERE output_id = $1 AND claim_id = $2 AND delivered_at IS NULL`
        : `UPDATE delivered_outputs SET lease_owner = NULL, lease_until = NULL
           WHERE output_id = $1 AND claim_id = $2 AND delivered_at IS NULL`,
      holdMs > 0
        ? [lease.outputId, lease.claimId, Math.ceil(holdMs)]
        : [lease.outputId, lease.claimId],
    );
  }
}
