import type { DataSource } from 'typeorm';

/** One statement and its rows, as node-postgres answers it. */
export type PooledQuery = <R = Record<string, unknown>>(
  text: string,
  values: readonly unknown[],
) => Promise<R[]>;

interface PgPool {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

const queries = new WeakMap<DataSource, PooledQuery>();

/**
 * A statement straight on the data source's own pg pool (the same connections, settings and
 * error handler), without TypeORM's query runner: a runner made, connected, broadcast to and
 * released per statement cost about as much CPU as the statement itself (D6), which a hot path
 * of one or two statements per message pays on every message. Errors are node-postgres's,
 * which classifyDatabaseError reads as it reads TypeORM's. Outside a transaction only; a
 * transaction keeps using the EntityManager it is handed. An UPDATE … RETURNING answers its
 * rows, not TypeORM's [rows, count].
 */
export function pooledQuery(dataSource: DataSource): PooledQuery {
  const known = queries.get(dataSource);
  if (known !== undefined) return known;
  const pool = (dataSource.driver as unknown as { master?: PgPool }).master;
  if (pool === undefined || typeof pool.query !== 'function') {
    throw new Error(
      'pooledQuery: the data source has no pg pool (not initialized, or not postgres)',
    );
  }
  const query: PooledQuery = async <R>(text: string, values: readonly unknown[]) =>
    (await pool.query(text, values as unknown[])).rows as R[];
  queries.set(dataSource, query);
  return query;
}
