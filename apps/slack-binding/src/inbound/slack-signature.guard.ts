import {
  type CanActivate,
  type ExecutionContext,
  Inject,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Request } from 'express';
import type { Logger } from 'pino';
import { SLACK_CONFIG } from '../slack-binding.tokens';
import type { SlackBindingConfig } from '../slack-binding.config';
import { verifySlackSignature } from './slack-signature.verifier';

/** Every Slack endpoint is signed; an unsigned or stale request gets 401 and nothing else. */
@Injectable()
export class SlackSignatureGuard implements CanActivate {
  constructor(
    @Inject(SLACK_CONFIG) private readonly config: SlackBindingConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request & { rawBody?: Buffer }>();
    const verdict = verifySlackSignature(
      this.config.SLACK_SIGNING_SECRET,
      request.rawBody,
      request.header('x-slack-request-timestamp'),
      request.header('x-slack-signature'),
    );
    if (verdict.ok) return true;
    this.logger.warn(
      { reason: verdict.reason, path: request.path },
      'refused an unsigned Slack request',
    );
    throw new UnauthorizedException({ reason: verdict.reason });
  }
}
