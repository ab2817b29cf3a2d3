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
import {
  ForwardClick,
  PLATFORM_ADAPTER,
  type PlatformAdapter,
  readInbound,
} from '@tollgate/binding-core';
import { InboundRefusals, SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ACTION_ID_PREFIX } from '../rendering/slack-prompt.renderer';
import { SLACK_ENDPOINTS } from './slack-endpoints';
import {
  type SlackBlockActions,
  slackBlockActionsSchema,
  slackInteractionTypeSchema,
} from './slack-inbound.schema';
import { SlackResponseUrl } from './slack-response-url';
import { SlackSignatureGuard } from './slack-signature.guard';

const formSchema = z.object({ payload: z.string().min(1) });

const EXPIRED_NOTICE = 'This request is no longer valid; nothing was run.';
const NOT_TAKEN_NOTICE =
  'Tollgate could not take this answer just now; nothing was run. Click again.';

/**
 * Button clicks become ToolInteractionResponse commands carrying the clicker. The prompt is
 * not touched here: it changes only when the session answers. A signed payload Tollgate
 * cannot read is answered 400 with its reason, which Slack shows the clicker as a failed
 * action; a retry of the same bytes could only be refused again.
 */
@Controller('slack')
@UseGuards(SlackSignatureGuard)
export class SlackInteractionsController {
  constructor(
    private readonly forwardClick: ForwardClick,
    @Inject(PLATFORM_ADAPTER) private readonly adapter: PlatformAdapter,
    private readonly refusals: InboundRefusals,
    private readonly responseUrl: SlackResponseUrl,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  @Post('interactions')
  @HttpCode(200)
  async receive(@Body() body: unknown): Promise<void> {
    const payload = this.blockActions(body);
    if (payload === undefined) return;
    const action = payload.actions?.find((a) => a.action_id?.startsWith(ACTION_ID_PREFIX));
    const teamId = payload.team?.id;
    const userId = payload.user?.id;
    const channelId = payload.channel?.id ?? payload.container?.channel_id;
    const messageTs = payload.container?.message_ts ?? payload.message?.ts;
    if (!action?.value || !action.action_ts || !userId || !channelId || !messageTs || !teamId) {
      this.logger.debug('ignored an interaction that is not a Tollgate button');
      return;
    }
    const clicker = {
      id: userId,
      ...(payload.user?.name || payload.user?.username
        ? { displayName: payload.user.name ?? payload.user.username }
        : {}),
    };
    let result: Awaited<ReturnType<ForwardClick['execute']>>;
    try {
      result = await this.forwardClick.execute({
        promptRef: action.value,
        optionKey: action.action_id!.slice(ACTION_ID_PREFIX.length),
        clicker,
        // docs/protocol.md §1: a Slack click's command id is `<action_ts>:<user id>`.
        commandId: `${action.action_ts}:${userId}`,
        messageRef: { channelId, messageId: messageTs },
      });
    } catch (error) {
      // Slack never retries a click: the non-2xx marks the button failed, and the reply says
      // why and what to do. It is not awaited, so the answer keeps within Slack's 3 s.
      this.logger.error(
        { err: error },
        'could not forward a Slack click; asking the clicker to click again',
      );
      void this.responseUrl.reply(payload.response_url, NOT_TAKEN_NOTICE);
      throw new ServiceUnavailableException({ reason: 'publish_failed' });
    }
    if (result.kind === 'forwarded') return;
    this.logger.info(
      { result: result.kind },
      'a click could not be forwarded; telling the clicker',
    );
    // The click's own response_url reaches the clicker even where the bot may not post; the
    // bot's chat.postEphemeral is the fallback. Nothing was published, so a retry could
    // change nothing: a notice that cannot be shown either way is only logged.
    if (await this.responseUrl.reply(payload.response_url, EXPIRED_NOTICE)) return;
    const threadId = payload.message?.thread_ts || payload.container?.thread_ts || messageTs;
    await this.adapter
      .sendNotice(
        { platform: 'slack', workspaceId: teamId, channelId, threadId },
        clicker,
        EXPIRED_NOTICE,
      )
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'could not tell a Slack clicker the click expired'),
      );
  }

  /** The click's payload, undefined for another kind of interaction; 400 when unreadable. */
  private blockActions(body: unknown): SlackBlockActions | undefined {
    const form = readInbound(formSchema, body);
    if (!form.ok) return this.refuse('missing_payload', form.detail);
    let json: unknown;
    try {
      json = JSON.parse(form.value.payload);
    } catch {
      return this.refuse('invalid_payload', 'payload: not JSON');
    }
    const kind = readInbound(slackInteractionTypeSchema, json);
    if (!kind.ok) return this.refuse('invalid_payload', `payload.${kind.detail}`);
    if (kind.value.type !== 'block_actions') return undefined;
    const payload = readInbound(slackBlockActionsSchema, json);
    if (!payload.ok) return this.refuse('invalid_payload', `payload.${payload.detail}`);
    return payload.value;
  }

  private refuse(reason: string, detail: string): never {
    this.refusals.authenticated(SLACK_ENDPOINTS.interactions, reason, { detail });
    throw new BadRequestException({ reason, detail });
  }
}
