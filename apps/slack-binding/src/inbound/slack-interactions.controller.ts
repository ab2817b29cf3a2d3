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
  EDIT_ACTION,
  ForwardClick,
  OpenEditForm,
  PLATFORM_ADAPTER,
  type PlatformAdapter,
  readInbound,
} from '@tollgate/binding-core';
import { EDIT_OPTION_KEY } from '@tollgate/protocol';
import { InboundRefusals, ReceivedAt, SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ACTION_ID_PREFIX } from '../rendering/slack-prompt.renderer';
import {
  EDIT_BLOCK_PREFIX,
  EDIT_CALLBACK_ID,
  EDIT_INPUT_ACTION,
} from '../rendering/slack-edit-modal.renderer';
import { SlackEditFormOpener } from '../platform/slack-edit-form.opener';
import { SLACK_ENDPOINTS } from './slack-endpoints';
import {
  type SlackBlockActions,
  slackBlockActionsSchema,
  slackInteractionTypeSchema,
  type SlackViewSubmission,
  slackViewSubmissionSchema,
} from './slack-inbound.schema';
import { SlackResponseUrl } from './slack-response-url';
import { SlackSignatureGuard } from './slack-signature.guard';

const formSchema = z.object({ payload: z.string().min(1) });

/** What the edit modal carries back (slack-edit-modal.renderer.ts), checked like any input. */
const editMetadataSchema = z.object({
  ref: z.string().min(1).max(64),
  channel: z.string().min(1).max(255),
  ts: z.string().min(1).max(64),
  thread: z.string().max(64).optional(),
  names: z.array(z.string().min(1).max(128)).min(1).max(5),
});

/** A view_submission's answer: closes the modal, or keeps it open with an error under a field. */
type SubmissionAnswer = { response_action: 'errors'; errors: Record<string, string> } | undefined;

const EXPIRED_NOTICE = 'This request is no longer valid; nothing was run.';
const NOT_TAKEN_NOTICE =
  'Tollgate could not take this answer just now; nothing was run. Click again.';
const FORM_NOT_OPENED_NOTICE =
  'Tollgate could not open the edit form just now; nothing was run. Click again.';
const NOT_EDITABLE_NOTICE = 'This request cannot be edited.';

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
    private readonly openEditForm: OpenEditForm,
    private readonly editForms: SlackEditFormOpener,
  ) {}

  @Post('interactions')
  @HttpCode(200)
  async receive(
    @Body() body: unknown,
    @ReceivedAt() receivedAt: number,
  ): Promise<SubmissionAnswer> {
    const payload = this.interaction(body);
    if (payload === undefined) return undefined;
    if (payload.type === 'view_submission') return this.submitEdit(payload, receivedAt);
    const action = payload.actions?.find((a) => a.action_id?.startsWith(ACTION_ID_PREFIX));
    if (action?.action_id === `${ACTION_ID_PREFIX}${EDIT_ACTION}`) {
      await this.openEdit(payload, action.value);
      return undefined;
    }
    const teamId = payload.team?.id;
    const userId = payload.user?.id;
    const channelId = payload.channel?.id ?? payload.container?.channel_id;
    const messageTs = payload.container?.message_ts ?? payload.message?.ts;
    if (!action?.value || !action.action_ts || !userId || !channelId || !messageTs || !teamId) {
      this.logger.debug('ignored an interaction that is not a Tollgate button');
      return undefined;
    }
    const clicker = {
      id: userId,
      ...(payload.user?.name || payload.user?.username
        ? { displayName: payload.user.name ?? payload.user.username }
        : {}),
    };
    let result: Awaited<ReturnType<ForwardClick['execute']>>;
    try {
      result = await this.forwardClick.execute(
        {
          promptRef: action.value,
          optionKey: action.action_id!.slice(ACTION_ID_PREFIX.length),
          clicker,
          // docs/protocol.md §1: a Slack click's command id is `<action_ts>:<user id>`.
          commandId: `${action.action_ts}:${userId}`,
          messageRef: { channelId, messageId: messageTs },
        },
        { receivedAt },
      );
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
    if (result.kind === 'forwarded') return undefined;
    this.logger.info(
      { result: result.kind },
      'a click could not be forwarded; telling the clicker',
    );
    // The click's own response_url reaches the clicker even where the bot may not post; the
    // bot's chat.postEphemeral is the fallback. Nothing was published, so a retry could
    // change nothing: a notice that cannot be shown either way is only logged.
    await this.tell(payload, clicker, EXPIRED_NOTICE);
    return undefined;
  }

  /**
   * G2: "Edit & approve" opens the modal at once, from the binding's journal alone: the
   * trigger_id lives 3 s, and the session service may be stopped. Nothing is published.
   */
  private async openEdit(payload: SlackBlockActions, promptRef: string | undefined): Promise<void> {
    const userId = payload.user?.id;
    const channelId = payload.channel?.id ?? payload.container?.channel_id;
    const messageTs = payload.container?.message_ts ?? payload.message?.ts;
    if (!promptRef || !payload.trigger_id || !userId || !channelId || !messageTs) {
      this.logger.debug('ignored an edit click without its trigger, user or message');
      return;
    }
    const clicker = { id: userId };
    const opened = await this.openEditForm.execute(promptRef);
    if (opened.kind !== 'form') {
      await this.tell(
        payload,
        clicker,
        opened.kind === 'not_editable' ? NOT_EDITABLE_NOTICE : EXPIRED_NOTICE,
      );
      return;
    }
    const thread = payload.message?.thread_ts || payload.container?.thread_ts;
    try {
      await this.editForms.open(payload.trigger_id, opened.form, {
        ref: promptRef,
        channel: channelId,
        ts: messageTs,
        ...(thread ? { thread } : {}),
        names: opened.form.fields.map((f) => f.name),
      });
    } catch (error) {
      this.logger.warn({ err: error }, 'could not open the Slack edit form; telling the clicker');
      await this.tell(payload, clicker, FORM_NOT_OPENED_NOTICE);
    }
  }

  /**
   * G2: the modal's submission is an approve_once carrying the texts typed, answered to Slack
   * only once JetStream stored it; a failure keeps the modal open with the reason under its
   * first field, so the approver can submit again.
   */
  private async submitEdit(
    payload: SlackViewSubmission,
    receivedAt: number,
  ): Promise<SubmissionAnswer> {
    if (payload.view.callback_id !== EDIT_CALLBACK_ID) return undefined;
    let metadata: z.infer<typeof editMetadataSchema>;
    try {
      const parsed = editMetadataSchema.safeParse(JSON.parse(payload.view.private_metadata ?? ''));
      if (!parsed.success) return this.refuse('invalid_payload', 'view.private_metadata');
      metadata = parsed.data;
    } catch {
      return this.refuse('invalid_payload', 'view.private_metadata: not JSON');
    }
    const userId = payload.user?.id;
    if (!userId || !payload.view.id) return this.refuse('invalid_payload', 'user or view id');
    const values = payload.view.state?.values ?? {};
    const edits = metadata.names.map((name, index) => ({
      name,
      text: Object.hasOwn(values, `${EDIT_BLOCK_PREFIX}${index}`)
        ? (values[`${EDIT_BLOCK_PREFIX}${index}`]?.[EDIT_INPUT_ACTION]?.value ?? '')
        : '',
    }));
    const name = payload.user?.name ?? payload.user?.username;
    const fieldError = (text: string): SubmissionAnswer => ({
      response_action: 'errors',
      errors: { [`${EDIT_BLOCK_PREFIX}0`]: text },
    });
    try {
      const result = await this.forwardClick.execute(
        {
          promptRef: metadata.ref,
          optionKey: EDIT_OPTION_KEY,
          clicker: { id: userId, ...(name ? { displayName: name } : {}) },
          // docs/protocol.md §1: an edit's command id is `view:<view id>:<user id>`.
          commandId: `view:${payload.view.id}:${userId}`,
          messageRef: { channelId: metadata.channel, messageId: metadata.ts },
          edits,
        },
        { receivedAt },
      );
      if (result.kind === 'forwarded') return undefined;
      this.logger.info({ result: result.kind }, 'an edit could not be forwarded');
      return fieldError(result.kind === 'refused' ? `Not sent: ${result.detail}` : EXPIRED_NOTICE);
    } catch (error) {
      this.logger.error({ err: error }, 'could not forward a Slack edit; keeping the form open');
      return fieldError(NOT_TAKEN_NOTICE.replace('Click again', 'Submit again'));
    }
  }

  /**
   * The click's own response_url reaches the clicker even where the bot may not post; the
   * bot's chat.postEphemeral is the fallback. A notice that cannot be shown either way is only
   * logged: nothing was published, so a retry could change nothing.
   */
  private async tell(
    payload: SlackBlockActions,
    clicker: { id: string },
    text: string,
  ): Promise<void> {
    if (await this.responseUrl.reply(payload.response_url, text)) return;
    const teamId = payload.team?.id;
    const channelId = payload.channel?.id ?? payload.container?.channel_id;
    const messageTs = payload.container?.message_ts ?? payload.message?.ts;
    if (!teamId || !channelId || !messageTs) return;
    const threadId = payload.message?.thread_ts || payload.container?.thread_ts || messageTs;
    await this.adapter
      .sendNotice({ platform: 'slack', workspaceId: teamId, channelId, threadId }, clicker, text)
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'could not tell a Slack clicker why nothing happened'),
      );
  }

  /** The click's or submission's payload, undefined for another kind; 400 when unreadable. */
  private interaction(body: unknown): SlackBlockActions | SlackViewSubmission | undefined {
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
    if (kind.value.type === 'view_submission') {
      const submission = readInbound(slackViewSubmissionSchema, json);
      if (!submission.ok) return this.refuse('invalid_payload', `payload.${submission.detail}`);
      return submission.value;
    }
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
