import type { DataSource } from 'typeorm';

export type DatabasePing = { ok: true; latencyMs: number } | { ok: false; reason: string };

export const DEFAULT_PING_TIMEOUT_MS = 2_000;

/**
 * `SELECT 1` within a deadline, for readiness. The deadline also covers waiting for a
 * pooled connection, so an exhausted pool or a silent network shows as not ready instead
 * of hanging the health endpoint.
 */
export async function ping(
  dataSource: DataSource,
  timeoutMs: number = DEFAULT_PING_TIMEOUT_MS,
): Promise<DatabasePing> {
  if (!dataSource.isInitialized) return { ok: false, reason: 'not connected' };
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<DatabasePing>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, reason: `no answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  const query = dataSource.query('SELECT 1').then(
    (): DatabasePing => ({ ok: true, latencyMs: Date.now() - started }),
    (error: unknown): DatabasePing => ({
      ok: false,
      reason: error instanceof Error ? error.message : String(error),
    }),
  );
  try {
    return await Promise.race([query, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
