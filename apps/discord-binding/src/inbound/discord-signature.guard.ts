import {
  type CanActivate,
  type ExecutionContext,
  Inject,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { KeyObject } from 'node:crypto';
import type { Request } from 'express';
import type { Logger } from 'pino';
import { DISCORD_CONFIG } from '../discord-binding.tokens';
import type { DiscordBindingConfig } from '../discord-binding.config';
import { discordPublicKey, verifyDiscordSignature } from './discord-signature.verifier';

/**
 * Every interaction is signed; an unsigned, forged or stale one gets 401 and nothing else
 * (Discord itself sends forged ones now and then to check this).
 */
@Injectable()
export class DiscordSignatureGuard implements CanActivate {
  private readonly publicKey: KeyObject;

  constructor(
    @Inject(DISCORD_CONFIG) config: DiscordBindingConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.publicKey = discordPublicKey(config.DISCORD_PUBLIC_KEY);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<Request & { rawBody?: Buffer }>();
    const verdict = verifyDiscordSignature(
      this.publicKey,
      request.rawBody,
      request.header('x-signature-timestamp'),
      request.header('x-signature-ed25519'),
    );
    if (verdict.ok) return true;
    this.logger.warn(
      { reason: verdict.reason, path: request.path },
      'refused an unsigned Discord request',
    );
    throw new UnauthorizedException({ reason: verdict.reason });
  }
}
