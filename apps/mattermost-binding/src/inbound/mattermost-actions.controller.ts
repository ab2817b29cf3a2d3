import {
  BadRequestException,
  Body,
  Controller,
  HttpCode,
  Inject,
  Post,
  UnauthorizedException,
} from '@nestjs/common';
import { ForwardClick, promptRefOf, readInbound } from '@tollgate/binding-core';
import { InboundRefusals, SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import type { MattermostBindingConfig } from '../mattermost-binding.config';
import { MATTERMOST_CONFIG } from '../mattermost-binding.tokens';
import { verifyActionContext } from './action-signature';
import { MATTERMOST_ENDPOINTS } from './mattermost-endpoints';
import { type MattermostAction, mattermostActionSchema } from './mattermost-inbound.schema';

/** The reply Mattermost reads: `update` is never sent, so the post stays as it is. */
interface ActionReply {
  ephemeral_text?: string;
}

const EXPIRED_NOTICE = 'This request is no longer valid; nothing was run.';
const RETRY_NOTICE = 'Tollgate could not take that click just now; please try again.';

/**
 * Button clicks become ToolInteractionResponse commands carrying the clicker. Mattermost signs
 * nothing, so the click is believed only when the HMAC in its context checks out. The prompt
 * is not touched here: it changes only when the session answers.
 */
@Controller('mattermost')
export class MattermostActionsController {
  constructor(
    private readonly forwardClick: ForwardClick,
    @Inject(MATTERMOST_CONFIG) private readonly config: MattermostBindingConfig,
    private readonly refusals: InboundRefusals,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  @Post('actions')
  @HttpCode(200)
  async receive(@Body() raw: unknown): Promise<ActionReply> {
    const body = this.readAction(raw);
    const verdict = verifyActionContext(this.config.MATTERMOST_ACTION_SECRET, body?.context);
    if (!verdict.ok) {
      this.refusals.unauthenticated(MATTERMOST_ENDPOINTS.actions, verdict.reason);
      throw new UnauthorizedException({ reason: verdict.reason });
    }
    const userId = str(body?.user_id);
    if (!userId) return { ephemeral_text: EXPIRED_NOTICE };
    const userName = str(body?.user_name);
    const postId = str(body?.post_id);
    const channelId = str(body?.channel_id);
    const { sessionId, callId, optionKey } = verdict.context;
    try {
      const result = await this.forwardClick.execute({
        promptRef: promptRefOf({ sessionId, callId }),
        optionKey,
        clicker: { id: userId, ...(userName ? { displayName: userName } : {}) },
        // PROTOCOL.md §1: the click's trigger_id, else its post and clicker.
        commandId: str(body?.trigger_id) || `${postId ?? callId}:${userId}`,
        ...(postId && channelId ? { messageRef: { channelId, messageId: postId } } : {}),
      });
      if (result.kind === 'forwarded') return {};
      this.logger.info({ result: result.kind }, 'a click could not be forwarded');
      return { ephemeral_text: EXPIRED_NOTICE };
    } catch (error) {
      // Mattermost never retries a callback: tell the clicker instead of failing the action.
      this.logger.error({ err: error }, 'could not forward a Mattermost click');
      return { ephemeral_text: RETRY_NOTICE };
    }
  }

  /**
   * The callback's shape, checked before its context: nothing here is authenticated yet, so a
   * refusal is only counted. Mattermost never retries a callback; 400 says why.
   */
  private readAction(raw: unknown): MattermostAction {
    const read = readInbound(mattermostActionSchema, raw);
    if (read.ok) return read.value;
    this.refusals.unauthenticated(MATTERMOST_ENDPOINTS.actions, 'invalid_payload', {
      detail: read.detail,
    });
    throw new BadRequestException({ reason: 'invalid_payload', detail: read.detail });
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
