import {
  BadRequestException,
  Body,
  Controller,
  HttpCode,
  Inject,
  type BeforeApplicationShutdown,
  Post,
  UseGuards,
} from '@nestjs/common';
import {
  ForwardClick,
  ForwardMessage,
  PLATFORM_ADAPTER,
  type PlatformAdapter,
  readInbound,
} from '@tollgate/binding-core';
import { InboundRefusals, SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import type { DiscordPlatformAdapter } from '../platform/discord-platform.adapter';
import { DISCORD_ENDPOINTS } from './discord-endpoints';
import { classifyDiscordInteraction, InteractionType } from './discord-interaction.rules';
import { discordInteractionSchema } from './discord-interaction.schema';
import { DiscordSignatureGuard } from './discord-signature.guard';

/** Interaction callback types (InteractionResponseType). */
const PONG = 1;
const CHANNEL_MESSAGE = 4;
const DEFERRED_CHANNEL_MESSAGE = 5;
const DEFERRED_UPDATE_MESSAGE = 6;

const EPHEMERAL = 1 << 6;
const USAGE = 'Write to Tollgate with `/ask text:<your message>`.';

export const ASK_ACKNOWLEDGEMENT = 'Sent to the agent.';
const ASK_FAILED = 'Tollgate could not take this message right now; please send it again.';
const ASK_REFUSED = 'Tollgate cannot take this message';
/** A typed answer that answered nothing: the reason is in the private hint beside it. */
const ASK_HELD = 'Not sent to the agent.';
const EXPIRED_NOTICE = 'This request is no longer valid; nothing was run.';
const CLICK_FAILED = 'Tollgate could not take this answer right now; please click again.';
/** How long a stopping process waits for interactions it already acknowledged. */
const SHUTDOWN_WAIT_MS = 2_000;

/**
 * `POST /discord/interactions`. Discord wants an answer within 3 s, so each interaction is
 * acknowledged at once — PING with PONG, `/ask` with a deferred message (type 5), a button
 * with a deferred update (type 6) — and forwarded right after. The prompt is not touched by a
 * click: it changes only when the session answers. A signed interaction Tollgate cannot read
 * is answered 400 with its reason: Discord never retries an interaction, and shows its sender
 * that it failed.
 */
@Controller('discord')
@UseGuards(DiscordSignatureGuard)
export class DiscordInteractionsController implements BeforeApplicationShutdown {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly adapter: DiscordPlatformAdapter;

  constructor(
    private readonly forwardMessage: ForwardMessage,
    private readonly forwardClick: ForwardClick,
    @Inject(PLATFORM_ADAPTER) adapter: PlatformAdapter,
    private readonly refusals: InboundRefusals,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.adapter = adapter as DiscordPlatformAdapter;
  }

  @Post('interactions')
  @HttpCode(200)
  receive(@Body() body: unknown): { type: number; data?: unknown } {
    const read = readInbound(discordInteractionSchema, body);
    if (!read.ok) {
      this.refusals.authenticated(DISCORD_ENDPOINTS.interactions, 'invalid_payload', {
        detail: read.detail,
      });
      throw new BadRequestException({ reason: 'invalid_payload', detail: read.detail });
    }
    const interaction = read.value;
    const verdict = classifyDiscordInteraction(interaction);
    switch (verdict.kind) {
      case 'ping':
        return { type: PONG };
      case 'ask':
        this.later(() => this.ask(verdict.token, verdict.message));
        return { type: DEFERRED_CHANNEL_MESSAGE };
      case 'click':
        this.later(() => this.click(verdict));
        return { type: DEFERRED_UPDATE_MESSAGE };
      case 'ignore':
        this.logger.debug({ reason: verdict.reason }, 'ignored a Discord interaction');
        // Every interaction gets an answer: a click on someone else's button is just
        // acknowledged, a command Tollgate does not know is explained to its sender only.
        if (interaction.type === InteractionType.component)
          return { type: DEFERRED_UPDATE_MESSAGE };
        if (interaction.type === InteractionType.command) {
          return {
            type: CHANNEL_MESSAGE,
            data: { content: USAGE, flags: EPHEMERAL, allowed_mentions: { parse: [] } },
          };
        }
        throw new BadRequestException({ reason: verdict.reason });
    }
  }

  /** Before NATS and PostgreSQL close: what was acknowledged is forwarded if it can be. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }

  private later(work: () => Promise<void>): void {
    const task = Promise.resolve()
      .then(work)
      .catch((error: unknown) => {
        this.logger.error({ err: error }, 'a Discord interaction failed after its acknowledgement');
      })
      .finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  private async ask(
    token: string,
    message: Parameters<ForwardMessage['execute']>[0],
  ): Promise<void> {
    let reply = ASK_ACKNOWLEDGEMENT;
    // So that a hint about a typed answer, or the session's refusal of it, is an ephemeral
    // follow-up to this command rather than a DM.
    await this.adapter
      .rememberInteraction(message.sender.id, message.conversation.channelId, token)
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'could not keep an interaction token'),
      );
    try {
      const result = await this.forwardMessage.execute(message);
      if (result.kind === 'hinted') reply = ASK_HELD;
      if (result.kind === 'refused') {
        this.logger.warn(
          { reason: result.reason, detail: result.detail },
          'refused a Discord message',
        );
        reply = `${ASK_REFUSED} (${result.reason}).`;
      }
    } catch (error) {
      this.logger.error({ err: error }, 'could not forward a Discord message');
      reply = ASK_FAILED;
    }
    await this.adapter.editOriginalResponse(token, reply);
  }

  private async click(
    verdict: Extract<ReturnType<typeof classifyDiscordInteraction>, { kind: 'click' }>,
  ): Promise<void> {
    const { click, token, channelId } = verdict;
    // Kept first: the session's answer (a refusal notice) may come back at once. Without it a
    // notice goes by DM, so the click is forwarded all the same.
    await this.adapter
      .rememberInteraction(click.clicker.id, channelId, token)
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'could not keep an interaction token'),
      );
    let notice: string | undefined;
    try {
      const result = await this.forwardClick.execute(click);
      if (result.kind === 'unknown_prompt') notice = EXPIRED_NOTICE;
      if (result.kind === 'refused') {
        this.logger.warn(
          { reason: result.reason, detail: result.detail },
          'refused a Discord click',
        );
        notice = EXPIRED_NOTICE;
      }
    } catch (error) {
      this.logger.error({ err: error }, 'could not forward a Discord click');
      notice = CLICK_FAILED;
    }
    if (notice !== undefined) {
      this.logger.info('a click could not be forwarded; telling the clicker');
      await this.adapter.ephemeralFollowUp(token, notice);
    }
  }
}
