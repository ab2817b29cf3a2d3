import type { DataSource } from 'typeorm';
import { statementName } from './prepared-query';

/** One statement and its rows, as node-postgres answers it. */
export type PooledQuery = <R = Record<string, unknown>>(
  text: string,
  values: readonly unknown[],
  /** A name makes it a prepared statement on each pooled connection (see queryPrepared). */
  name?: string,
) => Promise<R[]>;

interface PgPool {
  query(
    text: string | { name: string; text: string; values: unknown[] },
    values?: unknown[],
  ): Promise<{ rows: unknown[] }>;
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
  const query: PooledQuery = async <R>(text: string, values: readonly unknown[], name?: string) =>
    (name === undefined
      ? await pool.query(text, values as unknown[])
      : await pool.query({ name: statementName(name), text, values: values as unknown[] })
    ).rows as R[];
  queries.set(dataSource, query);
  return query;
}
