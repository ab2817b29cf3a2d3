import { Inject, Injectable } from '@nestjs/common';
import {
  type SignatureVerdict,
  type SignedRequest,
  SignedRequestGuard,
} from '@tollgate/binding-core';
import { InboundRefusals } from '@tollgate/service-runtime';
import { SLACK_CONFIG } from '../slack-binding.tokens';
import type { SlackBindingConfig } from '../slack-binding.config';
import { verifySlackSignature } from './slack-signature.verifier';
import { checkSlackAllowlist } from './slack-workspace.allowlist';

/** Every Slack endpoint is signed; an unsigned or stale request gets 401 and nothing else. */
@Injectable()
export class SlackSignatureGuard extends SignedRequestGuard {
  constructor(
    @Inject(SLACK_CONFIG) private readonly config: SlackBindingConfig,
    refusals: InboundRefusals,
  ) {
    super(refusals);
  }

  protected verify(request: SignedRequest): SignatureVerdict {
    const signed = verifySlackSignature(
      this.config.SLACK_SIGNING_SECRET,
      request.rawBody,
      request.header('x-slack-request-timestamp'),
      request.header('x-slack-signature'),
    );
    if (!signed.ok) return signed;
    return checkSlackAllowlist(
      { teamIds: this.config.SLACK_ALLOWED_TEAM_IDS, appIds: this.config.SLACK_ALLOWED_APP_IDS },
      request.rawBody,
    );
  }
}
