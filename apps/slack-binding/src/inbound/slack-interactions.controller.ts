import {
  BadRequestException,
  Body,
  Controller,
  HttpCode,
  Inject,
  Post,
  ServiceUnavailableException,
  UseGuards,
} from '@nestjs/common';
import { ForwardClick, PLATFORM_ADAPTER, type PlatformAdapter } from '@tollgate/binding-core';
import { SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { ACTION_ID_PREFIX } from '../rendering/slack-prompt.renderer';
import { SlackSignatureGuard } from './slack-signature.guard';

interface BlockActionsPayload {
  type?: string;
  team?: { id?: string };
  user?: { id?: string; name?: string; username?: string };
  channel?: { id?: string };
  container?: { message_ts?: string; channel_id?: string; thread_ts?: string };
  message?: { ts?: string; thread_ts?: string };
  actions?: { action_id?: string; value?: string; action_ts?: string }[];
}

const EXPIRED_NOTICE = 'This request is no longer valid; nothing was run.';

/**
 * Button clicks become ToolInteractionResponse commands carrying the clicker. The prompt is
 * not touched here: it changes only when the session answers.
 */
@Controller('slack')
@UseGuards(SlackSignatureGuard)
export class SlackInteractionsController {
  constructor(
    private readonly forwardClick: ForwardClick,
    @Inject(PLATFORM_ADAPTER) private readonly adapter: PlatformAdapter,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  @Post('interactions')
  @HttpCode(200)
  async receive(@Body() body: { payload?: string }): Promise<void> {
    const payload = parsePayload(body.payload);
    if (payload.type !== 'block_actions') return;
    const action = payload.actions?.find((a) => a.action_id?.startsWith(ACTION_ID_PREFIX));
    const userId = payload.user?.id;
    const channelId = payload.channel?.id ?? payload.container?.channel_id;
    const messageTs = payload.container?.message_ts ?? payload.message?.ts;
    if (
      !action?.value ||
      !action.action_ts ||
      !userId ||
      !channelId ||
      !messageTs ||
      !payload.team?.id
    ) {
      this.logger.debug('ignored an interaction that is not a Tollgate button');
      return;
    }
    const clicker = {
      id: userId,
      ...(payload.user?.name || payload.user?.username
        ? { displayName: payload.user.name ?? payload.user.username }
        : {}),
    };
    try {
      const result = await this.forwardClick.execute({
        promptRef: action.value,
        optionKey: action.action_id!.slice(ACTION_ID_PREFIX.length),
        clicker,
        // PROTOCOL.md §1: a Slack click's command id is `<action_ts>:<user id>`.
        commandId: `${action.action_ts}:${userId}`,
        messageRef: { channelId, messageId: messageTs },
      });
      if (result.kind === 'forwarded') return;
      this.logger.info(
        { result: result.kind },
        'a click could not be forwarded; telling the clicker',
      );
      const threadId = payload.message?.thread_ts ?? payload.container?.thread_ts ?? messageTs;
      await this.adapter.sendNotice(
        { platform: 'slack', workspaceId: payload.team.id, channelId, threadId },
        clicker,
        EXPIRED_NOTICE,
      );
    } catch (error) {
      this.logger.error({ err: error }, 'could not forward a Slack click; Slack will retry');
      throw new ServiceUnavailableException({ reason: 'publish_failed' });
    }
  }
}

function parsePayload(raw: string | undefined): BlockActionsPayload {
  if (!raw) throw new BadRequestException({ reason: 'missing_payload' });
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object');
    return parsed;
  } catch {
    throw new BadRequestException({ reason: 'invalid_payload' });
  }
}
