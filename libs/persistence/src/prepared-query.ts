import { QueryFailedError } from 'typeorm';

/**
 * What a hot statement runs on: a transaction's EntityManager, whose `queryRunner` holds the
 * pg client as `databaseConnection` (read by shape: TypeORM's QueryRunner type does not name
 * it), or anything else with `query`.
 */
export interface PreparableQueryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
  /** Statements that run on the pool (pooledQuery) prepare by name on each connection. */
  queryNamed?(name: string, text: string, values: unknown[]): Promise<unknown[]>;
}

interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** PostgreSQL truncates longer names (NAMEDATALEN), so two statements could share one. */
const MAX_NAME_LENGTH = 63;

/**
 * Runs a hot statement as a named prepared statement on the transaction's own connection:
 * node-postgres parses it once per connection, and PostgreSQL plans it from its cached plan
 * instead of parsing and planning the text on every call. For the statements that join
 * `unnest … WITH ORDINALITY` to `jsonb_array_elements`, planning cost more of the server's
 * CPU than the rows did: bench:binding's database CPU per edit fell by about half, and
 * bench:session's turns/s at 1,000 conversations rose by a sixth. A name is bound to one
 * text: one name per statement, constant SQL. Errors are TypeORM's QueryFailedError over
 * node-postgres's, as `manager.query` throws them, so callers read `driverError.code` as
 * before. Without a transaction's connection (a test double, a manager outside any
 * transaction) it is a plain `query`. Prepared, it answers the rows: an UPDATE answers its
 * rows, not TypeORM's [rows, count], so an UPDATE … RETURNING belongs on a transaction's
 * manager or the pool.
 */
export async function queryPrepared<R = unknown>(
  db: PreparableQueryable,
  name: string,
  text: string,
  values: unknown[],
): Promise<R[]> {
  if (db.queryNamed !== undefined) return (await db.queryNamed(name, text, values)) as R[];
  const runner = (db as { queryRunner?: { databaseConnection?: unknown } }).queryRunner;
  const connection = runner?.databaseConnection as PgClient | undefined;
  if (connection === undefined || typeof connection.query !== 'function') {
    return (await db.query(text, values)) as R[];
  }
  try {
    return (await connection.query({ name: statementName(name), text, values })).rows as R[];
  } catch (error) {
    throw new QueryFailedError(text, values, error as Error);
  }
}

/** The name as given, refused if PostgreSQL would truncate it into another statement's. */
export function statementName(name: string): string {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) {
    throw new Error(`a prepared statement's name has 1 to ${MAX_NAME_LENGTH} characters: ${name}`);
  }
  return name;
}
