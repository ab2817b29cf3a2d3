import { type CanActivate, type ExecutionContext, UnauthorizedException } from '@nestjs/common';
import type { InboundRefusals } from '@tollgate/service-runtime';
import type { Request } from 'express';

export type SignatureVerdict = { ok: true } | { ok: false; reason: string };

/** Signed platforms refuse requests more than five minutes from now, in either direction. */
export const SIGNATURE_WINDOW_SECONDS = 5 * 60;

/** What a platform's verifier reads: the body exactly as received, and the headers. */
export type SignedRequest = Request & { rawBody?: Buffer };

/**
 * Every signed platform endpoint refuses the same way: 401 with the reason, counted, and
 * nothing published. Each binding supplies only how its platform signs. Anyone can send an
 * unsigned request, so the refusal is logged at debug only (see InboundRefusals).
 */
export abstract class SignedRequestGuard implements CanActivate {
  protected constructor(private readonly refusals: InboundRefusals) {}

  protected abstract verify(request: SignedRequest): SignatureVerdict;

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<SignedRequest>();
    const verdict = this.verify(request);
    if (verdict.ok) return true;
    this.refusals.unauthenticated(routeOf(request), verdict.reason);
    throw new UnauthorizedException({ reason: verdict.reason });
  }
}

/** The matched route as declared, never the raw path: a label must not grow with the input. */
function routeOf(request: Request): string {
  const route: unknown = request.route;
  const path =
    typeof route === 'object' && route !== null ? (route as { path?: unknown }).path : undefined;
  return typeof path === 'string' ? path : 'other';
}
