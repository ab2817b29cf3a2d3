/**
 * Whether retrying a failed database call can help, from its SQLSTATE. A consumer that retries
 * a statement PostgreSQL will refuse every time holds its message for max_deliver deliveries
 * (days), and a consumer that gives up on a dropped connection loses a good message.
 */
export interface DatabaseErrorClass {
  readonly kind: 'permanent' | 'transient';
  readonly sqlState: string;
  /** `database_<kind>: <sqlstate> <message>`, safe to log and to put in a DLQ header. */
  readonly reason: string;
}

/**
 * Classes whose errors come back identically on every retry of the same statement with the
 * same data: 21 cardinality, 22 data exception (incl. 22P05 and 22021 for U+0000), 23 integrity
 * constraint (callers handle the conflicts they expect, e.g. 23505 on an optimistic append,
 * before this), 2F routine exception, 42 syntax error or access rule, 44 check option,
 * 54 program limit exceeded, 0A feature not supported, P0 PL/pgSQL raise.
 */
const PERMANENT_CLASSES = new Set(['21', '22', '23', '2F', '42', '44', '54', '0A', 'P0']);

/**
 * Everything else with a SQLSTATE stays transient, notably 08 connection, 40 rollback
 * (40001 serialization, 40P01 deadlock), 53 insufficient resources, 55 lock not available,
 * 57 operator intervention (57P01 admin shutdown, 57014 statement timeout), 58 system error.
 */
export function classifyDatabaseError(error: unknown): DatabaseErrorClass | undefined {
  const found = sqlStateOf(error);
  if (!found) return undefined;
  const kind = PERMANENT_CLASSES.has(found.sqlState.slice(0, 2)) ? 'permanent' : 'transient';
  const message = found.message.replace(/[\r\n]+/g, ' ').slice(0, 200);
  return {
    kind,
    sqlState: found.sqlState,
    reason: `database_${kind}: ${found.sqlState} ${message}`,
  };
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** node-postgres puts the SQLSTATE on `code`; TypeORM wraps it in `driverError`; causes nest. */
function sqlStateOf(error: unknown, depth = 0): { sqlState: string; message: string } | undefined {
  if (typeof error !== 'object' || error === null || depth > 4) return undefined;
  const candidate = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
  };
  // Node's own errors (ECONNREFUSED, ETIMEDOUT) also use `code`, but never five upper-case
  // alphanumerics that include a digit in the class.
  if (
    typeof candidate.code === 'string' &&
    SQLSTATE.test(candidate.code) &&
    /\d/.test(candidate.code)
  ) {
    return {
      sqlState: candidate.code,
      message: typeof candidate.message === 'string' ? candidate.message : '',
    };
  }
  return sqlStateOf(candidate.driverError, depth + 1) ?? sqlStateOf(candidate.cause, depth + 1);
}
