import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';

/**
 * The transport settles a message from the error its handler threw (TransientFailure → nak
 * with delay, PermanentFailure → dead-letter, …). Nest's default RPC filter would replace
 * every unknown error with `{ status: 'error' }` and lose that, so this one, the global
 * fallback, hands the error on unchanged. Filters a controller declares itself still run
 * first, e.g. to turn a domain error into a PermanentFailure.
 */
@Catch()
export class JetStreamSettlementFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
