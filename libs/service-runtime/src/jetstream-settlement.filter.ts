import { type ArgumentsHost, Catch } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
import { type Observable, throwError } from 'rxjs';

/**
 * The transport settles a message from the error its handler threw (TransientFailure → nak
 * with delay, PermanentFailure → dead-letter, …). Nest's default RPC filter would replace
 * every unknown error with `{ status: 'error' }` and lose that, so this one, the global
 * fallback, hands an RPC handler's error on unchanged; filters a controller declares itself
 * still run first (e.g. to turn a domain error into a PermanentFailure). Nest reads global
 * filters when it registers handlers, and a microservice connected to an HTTP app registers
 * them at once, so the filter is the app's: HTTP errors get Nest's default handling from it.
 */
@Catch()
export class JetStreamSettlementFilter extends BaseExceptionFilter {
  override catch(exception: unknown, host: ArgumentsHost): Observable<never> | void {
    if (host.getType() === 'rpc') return throwError(() => exception);
    super.catch(exception, host);
  }
}
