import { Gauge, type Registry } from 'prom-client';
import type { DataSource } from 'typeorm';

/**
 * How many prompts wait for a human, and since when the oldest, read from the
 * pending-approvals projection at each scrape (a prompt pending for hours is a person not
 * told, or a binding not showing it). A failed read keeps the last values: a scrape never
 * fails because PostgreSQL is away, its own readiness check says that.
 */
export function observePendingPrompts(registry: Registry, dataSource: DataSource): void {
  let last = { pending: 0, oldestSeconds: 0 };
  let reading: Promise<void> | undefined;
  const read = (): Promise<void> => {
    // One query per scrape, shared by both gauges.
    reading ??= dataSource
      .query<{ pending: string; oldest_seconds: number | null }[]>(
        `SELECT count(*) AS pending,
                EXTRACT(EPOCH FROM now() - min(e.occurred_at))::float8 AS oldest_seconds
         FROM pending_approvals p
         JOIN session_events e ON e.session_id = p.session_id AND e.seq = p.requested_seq`,
      )
      .then(
        ([row]) => {
          last = { pending: Number(row?.pending ?? 0), oldestSeconds: row?.oldest_seconds ?? 0 };
        },
        () => undefined,
      )
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  new Gauge({
    name: 'tollgate_prompts_pending',
    help: 'Approval prompts waiting for an answer (session-service leader)',
    registers: [registry],
    async collect(this: Gauge) {
      await read();
      this.set(last.pending);
    },
  });
  new Gauge({
    name: 'tollgate_prompt_oldest_pending_seconds',
    help: 'How long the oldest approval prompt has waited for an answer (0: none pending)',
    registers: [registry],
    async collect(this: Gauge) {
      await read();
      this.set(last.oldestSeconds);
    },
  });
}
