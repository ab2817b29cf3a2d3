import { PermanentFailure, TransientFailure } from '@tollgate/messaging';
import { classifyDatabaseError } from '@tollgate/persistence';

/**
 * What a consumer's handler threw, as the runner should settle it. A handler that already
 * chose (Transient/PermanentFailure) is trusted; a database error is classified by its
 * SQLSTATE, so a statement PostgreSQL refuses every time is dead-lettered once instead of
 * holding its message (and an ack-pending slot) for max_deliver deliveries; anything else is
 * left as it is, which the runner retries.
 */
export function classifyHandlerFailure(error: unknown): unknown {
  if (error instanceof PermanentFailure || error instanceof TransientFailure) return error;
  const database = classifyDatabaseError(error);
  if (!database) return error;
  return database.kind === 'permanent'
    ? new PermanentFailure(database.reason, { cause: error })
    : new TransientFailure(database.reason, { cause: error });
}
