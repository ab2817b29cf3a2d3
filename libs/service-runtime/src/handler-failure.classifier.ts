import { HttpException } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { PermanentFailure, TransientFailure } from '@tollgate/messaging';
import { classifyDatabaseError } from '@tollgate/persistence';

/**
 * What a consumer's handler threw, as the runner should settle it. A handler that already
 * chose (Transient/PermanentFailure) is trusted; a database error is classified by its
 * SQLSTATE, so a statement PostgreSQL refuses every time is dead-lettered once instead of
 * holding its message (and an ack-pending slot) for max_deliver deliveries. A guard that
 * refuses (Nest's ForbiddenException), a pipe that cannot read the message (a 4xx
 * HttpException) or an RpcException says the same of every delivery, so it is dead-lettered
 * with its reason; anything else is left as it is, which the runner retries.
 */
export function classifyHandlerFailure(error: unknown): unknown {
  if (error instanceof PermanentFailure || error instanceof TransientFailure) return error;
  if (error instanceof HttpException && error.getStatus() < 500) {
    return new PermanentFailure(`refused: ${error.getStatus()} ${error.message}`, {
      cause: error,
    });
  }
  if (error instanceof RpcException) {
    return new PermanentFailure(`refused: ${error.message}`, { cause: error });
  }
  const database = classifyDatabaseError(error);
  if (!database) return error;
  return database.kind === 'permanent'
    ? new PermanentFailure(database.reason, { cause: error })
    : new TransientFailure(database.reason, { cause: error });
}
