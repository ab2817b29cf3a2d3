import {
  BadRequestException,
  Body,
  Controller,
  HttpCode,
  Inject,
  Post,
  UseGuards,
} from '@nestjs/common';
import {
  ForwardClick,
  ForwardMessage,
  OpenEditForm,
  PLATFORM_ADAPTER,
  type PlatformAdapter,
  readInbound,
} from '@tollgate/binding-core';
import { InboundRefusals, ReceivedAt, SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import type { DiscordPlatformAdapter } from '../platform/discord-platform.adapter';
import { DISCORD_ENDPOINTS } from './discord-endpoints';
import { classifyDiscordInteraction, InteractionType } from './discord-interaction.rules';
import { discordInteractionSchema } from './discord-interaction.schema';
import { DiscordSignatureGuard } from './discord-signature.guard';
import { MODAL_RESPONSE, renderDiscordEditModal } from '../rendering/discord-edit-modal.renderer';

/** Interaction callback types (InteractionResponseType). */
const PONG = 1;
const CHANNEL_MESSAGE = 4;
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
const NOT_EDITABLE_NOTICE = 'This request cannot be edited.';
const EDIT_FAILED = 'Tollgate could not take this edit right now; please edit again.';

type InteractionReply = { type: number; data?: unknown };

/**
 * `POST /discord/interactions`. Discord wants an answer within 3 s and never retries one it
 * got, so every interaction is answered only once its command is stored in JetStream (R1):
 * `/ask` with the acknowledgement itself (type 4), a click with a deferred update (type 6).
 * A publish that fails, or does not finish within its bound (well inside the 3 s), is
 * answered with an ephemeral message saying to try again — never with an answer that claims
 * success — so nothing depends on a follow-up that could fail unseen. The prompt is not
 * touched by a click: it changes only when the session answers. A signed interaction
 * Tollgate cannot read is answered 400 with its reason: Discord shows its sender that it
 * failed.
 */
@Controller('discord')
@UseGuards(DiscordSignatureGuard)
export class DiscordInteractionsController {
  private readonly adapter: DiscordPlatformAdapter;

  constructor(
    private readonly forwardMessage: ForwardMessage,
    private readonly forwardClick: ForwardClick,
    @Inject(PLATFORM_ADAPTER) adapter: PlatformAdapter,
    private readonly refusals: InboundRefusals,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    private readonly openEditForm: OpenEditForm,
  ) {
    this.adapter = adapter as DiscordPlatformAdapter;
  }

  @Post('interactions')
  @HttpCode(200)
  async receive(
    @Body() body: unknown,
    @ReceivedAt() receivedAt: number,
  ): Promise<InteractionReply> {
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
        return this.ask(verdict.token, verdict.message, receivedAt);
      case 'click':
        return this.click(verdict, receivedAt);
      case 'edit':
        return this.edit(verdict.promptRef);
      case 'edit_submit':
        return this.submitEdit(verdict, receivedAt);
      case 'ignore':
        this.logger.debug({ reason: verdict.reason }, 'ignored a Discord interaction');
        // Every interaction gets an answer: a click on someone else's button is just
        // acknowledged, a command Tollgate does not know is explained to its sender only.
        if (interaction.type === InteractionType.component)
          return { type: DEFERRED_UPDATE_MESSAGE };
        if (interaction.type === InteractionType.command) return ephemeral(USAGE);
        throw new BadRequestException({ reason: verdict.reason });
    }
  }

  private async ask(
    token: string,
    message: Parameters<ForwardMessage['execute']>[0],
    receivedAt: number,
  ): Promise<InteractionReply> {
    // Kept first, bounded like a click's: the session's refusal of a typed answer then comes
    // as an ephemeral follow-up to this command rather than a DM.
    await withinMs(
      this.adapter.rememberInteraction(message.sender.id, message.conversation.channelId, token),
      REMEMBER_TOKEN_MS,
    ).catch((error: unknown) =>
      this.logger.warn({ err: error }, 'could not keep an interaction token'),
    );
    try {
      // A hint is the answer itself: Discord takes no follow-up before the interaction is answered.
      const result = await this.forwardMessage.execute(message, { hintInReply: true, receivedAt });
      if (result.kind === 'hinted') return ephemeral(`${ASK_HELD} ${result.text}`);
      if (result.kind === 'refused') {
        this.logger.warn(
          { reason: result.reason, detail: result.detail },
          'refused a Discord message',
        );
        return ephemeral(`${ASK_REFUSED} (${result.reason}).`);
      }
    } catch (error) {
      this.logger.error(
        { err: error },
        'could not publish a Discord message; told its sender to send it again',
      );
      return ephemeral(ASK_FAILED);
    }
    return {
      type: CHANNEL_MESSAGE,
      data: { content: ASK_ACKNOWLEDGEMENT, allowed_mentions: { parse: [] } },
    };
  }

  /**
   * G2: the modal is the click's first (and only) response, from the binding's journal alone:
   * it opens while the session service is stopped.
   */
  private async edit(promptRef: string): Promise<InteractionReply> {
    const opened = await this.openEditForm.execute(promptRef);
    if (opened.kind === 'form') {
      return { type: MODAL_RESPONSE, data: renderDiscordEditModal(opened.form) };
    }
    return ephemeral(opened.kind === 'not_editable' ? NOT_EDITABLE_NOTICE : EXPIRED_NOTICE);
  }

  /**
   * G2: the modal's submission, an approve_once with the texts typed, answered like a click:
   * only once JetStream stored it. The inputs carry their index; the names come from the
   * journal's prompt, so a prompt answered meanwhile is told expired.
   */
  private async submitEdit(
    verdict: Extract<ReturnType<typeof classifyDiscordInteraction>, { kind: 'edit_submit' }>,
    receivedAt: number,
  ): Promise<InteractionReply> {
    const opened = await this.openEditForm.execute(verdict.click.promptRef);
    if (opened.kind !== 'form') return ephemeral(EXPIRED_NOTICE);
    const edits = opened.form.fields.map((field, index) => ({
      name: field.name,
      text: verdict.texts.get(index) ?? field.value,
    }));
    return this.click({ ...verdict, click: { ...verdict.click, edits } }, receivedAt, EDIT_FAILED);
  }

  private async click(
    verdict: Pick<
      Extract<ReturnType<typeof classifyDiscordInteraction>, { kind: 'click' }>,
      'click' | 'token' | 'channelId'
    >,
    receivedAt: number,
    failed = CLICK_FAILED,
  ): Promise<InteractionReply> {
    const { click, token, channelId } = verdict;
    // Kept first: the session's answer (a refusal notice) may come back at once. Without it a
    // notice goes by DM, so the click is forwarded all the same; bounded, so a slow database
    // cannot eat the time Discord gives the answer.
    await withinMs(
      this.adapter.rememberInteraction(click.clicker.id, channelId, token),
      REMEMBER_TOKEN_MS,
    ).catch((error: unknown) =>
      this.logger.warn({ err: error }, 'could not keep an interaction token'),
    );
    try {
      const result = await this.forwardClick.execute(click, { receivedAt });
      if (result.kind === 'forwarded') return { type: DEFERRED_UPDATE_MESSAGE };
      if (result.kind === 'refused') {
        this.logger.warn(
          { reason: result.reason, detail: result.detail },
          'refused a Discord click',
        );
      }
      this.logger.info(
        { result: result.kind },
        'a click could not be forwarded; telling the clicker',
      );
      return ephemeral(EXPIRED_NOTICE);
    } catch (error) {
      this.logger.error(
        { err: error },
        'could not publish a Discord click; told the clicker to click again',
      );
      return ephemeral(failed);
    }
  }
}

/** How long keeping a click's token may take before the click goes on without it. */
const REMEMBER_TOKEN_MS = 500;

function ephemeral(content: string): InteractionReply {
  return {
    type: CHANNEL_MESSAGE,
    data: { content, flags: EPHEMERAL, allowed_mentions: { parse: [] } },
  };
}

function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
