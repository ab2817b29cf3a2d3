import { fromJsonbValue, toJsonbArrayText } from '@tollgate/persistence';
import type { ToolInteractionUpdate } from '@tollgate/protocol';
import type { DataSourceAccess } from './data-source-access';
import type { OwedRefresh, OwedRefreshes } from './owed-refreshes.port';

/** Refreshes parked within this long of each other are stored in one statement. */
const BATCH_MS = 10;
const BATCH_MAX = 500;

interface Pending {
  readonly output: ToolInteractionUpdate;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * {@link OwedRefreshes} in the binding's schema. Parking is batched: a restart parks
 * thousands at once, and one statement per few hundred keeps that from costing a round trip
 * each. Within a batch, and against what is stored, the newest refresh of a prompt wins.
 */
export class OwedRefreshesRepository implements OwedRefreshes {
  private batch: Pending[] = [];
  private timer?: NodeJS.Timeout;

  constructor(private readonly db: DataSourceAccess) {}

  owe(output: ToolInteractionUpdate): Promise<void> {
    return new Promise((resolve, reject) => {
      this.batch.push({ output, resolve, reject });
      if (this.batch.length >= BATCH_MAX) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), BATCH_MS);
    });
  }

  async due(limit: number): Promise<OwedRefresh[]> {
    const dataSource = await this.db();
    const rows: { session_id: string; call_id: string; seq: number; output: unknown }[] =
      await dataSource.query(
        `SELECT session_id, call_id, seq, output FROM owed_refreshes
         WHERE lease_until IS NULL OR lease_until < clock_timestamp()
         ORDER BY owed_at LIMIT $1`,
        [limit],
      );
    return rows.map((row) => ({
      key: { sessionId: row.session_id, callId: row.call_id },
      seq: row.seq,
      output: fromJsonbValue<ToolInteractionUpdate>(row.output),
    }));
  }

  async lease(owed: OwedRefresh, owner: string, leaseMs: number): Promise<boolean> {
    const dataSource = await this.db();
    const rows: unknown[] = await dataSource.query(
      `UPDATE owed_refreshes
       SET lease_owner = $4, lease_until = clock_timestamp() + $5::int * interval '1 millisecond'
       WHERE session_id = $1 AND call_id = $2 AND seq = $3
         AND (lease_until IS NULL OR lease_until < clock_timestamp())
       RETURNING 1`,
      [owed.key.sessionId, owed.key.callId, owed.seq, owner, leaseMs],
    );
    return affected(rows) > 0;
  }

  async done(owed: OwedRefresh): Promise<void> {
    const dataSource = await this.db();
    await dataSource.query(
      `DELETE FROM owed_refreshes WHERE session_id = $1 AND call_id = $2 AND seq = $3`,
      [owed.key.sessionId, owed.key.callId, owed.seq],
    );
  }

  async release(owed: OwedRefresh): Promise<void> {
    const dataSource = await this.db();
    await dataSource.query(
      `UPDATE owed_refreshes SET lease_owner = NULL, lease_until = NULL
       WHERE session_id = $1 AND call_id = $2 AND seq = $3`,
      [owed.key.sessionId, owed.key.callId, owed.seq],
    );
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0) return;
    // One row per prompt: ON CONFLICT may not touch a row twice in one statement.
    const newest = new Map<string, ToolInteractionUpdate>();
    for (const { output } of batch) {
      const key = `${output.sessionId}\u0000${output.callId}`;
      const known = newest.get(key);
      if (known === undefined || known.seq < output.seq) newest.set(key, output);
    }
    const outputs = [...newest.values()];
    this.store(outputs).then(
      () => batch.forEach((p) => p.resolve()),
      (error: unknown) => batch.forEach((p) => p.reject(error)),
    );
  }

  private async store(outputs: ToolInteractionUpdate[]): Promise<void> {
    const dataSource = await this.db();
    // The outputs go as one jsonb array, not a jsonb[] (see toJsonbArrayText).
    await dataSource.query(
      `INSERT INTO owed_refreshes (session_id, call_id, seq, output)
       SELECT k.session_id, k.call_id, k.seq, o.output
       FROM unnest($1::text[], $2::text[], $3::int[]) WITH ORDINALITY
           AS k(session_id, call_id, seq, n)
         JOIN jsonb_array_elements($4::jsonb) WITH ORDINALITY AS o(output, n) USING (n)
       ON CONFLICT (session_id, call_id) DO UPDATE
         SET seq = EXCLUDED.seq, output = EXCLUDED.output, lease_owner = NULL, lease_until = NULL
         WHERE owed_refreshes.seq < EXCLUDED.seq`,
      [
        outputs.map((o) => o.sessionId),
        outputs.map((o) => o.callId),
        outputs.map((o) => o.seq),
        toJsonbArrayText(outputs),
      ],
    );
  }
}

/** TypeORM answers an UPDATE … RETURNING with [rows, count], a SELECT with the rows. */
function affected(result: unknown[]): number {
  return Array.isArray(result[0]) ? (result[0] as unknown[]).length : result.length;
}
