import { Inject, Injectable } from '@nestjs/common';
import {
  type SignatureVerdict,
  type SignedRequest,
  SignedRequestGuard,
} from '@tollgate/binding-core';
import { InboundRefusals } from '@tollgate/service-runtime';
import type { KeyObject } from 'node:crypto';
import { DISCORD_CONFIG } from '../discord-binding.tokens';
import type { DiscordBindingConfig } from '../discord-binding.config';
import { discordPublicKey, verifyDiscordSignature } from './discord-signature.verifier';

/**
 * Every interaction is signed; an unsigned, forged or stale one gets 401 and nothing else
 * (Discord itself sends forged ones now and then to check this).
 */
@Injectable()
export class DiscordSignatureGuard extends SignedRequestGuard {
  private readonly publicKey: KeyObject;

  constructor(@Inject(DISCORD_CONFIG) config: DiscordBindingConfig, refusals: InboundRefusals) {
    super(refusals);
    this.publicKey = discordPublicKey(config.DISCORD_PUBLIC_KEY);
  }

  protected verify(request: SignedRequest): SignatureVerdict {
    return verifyDiscordSignature(
      this.publicKey,
      request.rawBody,
      request.header('x-signature-timestamp'),
      request.header('x-signature-ed25519'),
    );
  }
}
