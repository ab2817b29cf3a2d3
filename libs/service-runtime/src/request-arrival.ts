import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

const arrivals = new WeakMap<object, number>();

/**
 * Express middleware, installed first: notes when each request arrived (epoch ms), before its
 * body is read or its signature checked, so a deadline counted from it covers all of that.
 */
export function stampArrival(req: Request, _res: Response, next: NextFunction): void {
  arrivals.set(req, Date.now());
  next();
}

/** When `req` arrived (epoch ms), if stampArrival saw it. */
export function arrivalOf(req: object): number | undefined {
  return arrivals.get(req);
}

/**
 * The handler's parameter: when its request arrived (epoch ms). An app that did not install
 * stampArrival (a test module) gets the handler's start, which is later, never earlier.
 */
export const ReceivedAt = createParamDecorator(
  (_data: unknown, context: ExecutionContext): number =>
    arrivalOf(context.switchToHttp().getRequest<object>()) ?? Date.now(),
);
