import { type CanActivate, type ExecutionContext, UnauthorizedException } from '@nestjs/common';
import type { Request } from 'express';
import type { Logger } from 'pino';

export type SignatureVerdict = { ok: true } | { ok: false; reason: string };

/** Signed platforms refuse requests more than five minutes from now, in either direction. */
export const SIGNATURE_WINDOW_SECONDS = 5 * 60;

/** What a platform's verifier reads: the body exactly as received, and the headers. */
export type SignedRequest = Request & { rawBody?: Buffer };

/**
 * Every signed platform endpoint refuses the same way: 401 with the reason, a warning in the
 * log, and nothing published. Each binding supplies only how its platform signs.
 */
export abstract class SignedRequestGuard implements CanActivate {
  protected constructor(
    private readonly platformName: string,
    private readonly logger: Logger,
  ) {}

  protected abstract verify(request: SignedRequest): SignatureVerdict;

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<SignedRequest>();
    const verdict = this.verify(request);
    if (verdict.ok) return true;
    this.logger.warn(
      { reason: verdict.reason, path: request.path },
      `refused an unsigned ${this.platformName} request`,
    );
    throw new UnauthorizedException({ reason: verdict.reason });
  }
}
