import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  Inject,
} from '@nestjs/common';
import { SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Response } from 'express';
import type { Logger } from 'pino';

/**
 * Every answer of the API in its one error shape: Nest's own refusals (an unknown route, a
 * method not allowed) are mapped to it, and anything unexpected is a 503 the agent may retry
 * (PostgreSQL or NATS away), logged, never a stack trace on the wire.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(@Inject(SERVICE_LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const body = exception.getResponse();
      if (typeof body === 'object' && body !== null && 'error' in body && 'message' in body) {
        res.status(status).json(body);
        return;
      }
      res.status(status).json({ error: codeOf(status), message: exception.message });
      return;
    }
    this.logger.error({ err: exception }, 'request failed');
    res.status(503).json({ error: 'unavailable', message: 'try again shortly' });
  }
}

function codeOf(status: number): string {
  switch (status) {
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'body_too_large';
    default:
      return status >= 500 ? 'unavailable' : 'bad_request';
  }
}
