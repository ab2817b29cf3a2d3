import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import {
  EDIT_ACTION,
  ForwardClick,
  OpenEditForm,
  PromptJournalRepository,
} from '@tollgate/binding-core';
import { ReceivedAt, SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { MattermostDialogs } from '../platform/mattermost-dialogs';
import { renderMattermostEditDialog } from '../rendering/mattermost-edit-dialog.renderer';
import type { ActionContext } from './action-signature';
import { checkClick, type ClickCheck } from './mattermost-click.rules';
import { MattermostCallbackGate } from './mattermost-callback.gate';
import { mattermostCommandId } from './mattermost-command-id';
import { MATTERMOST_ENDPOINTS } from './mattermost-endpoints';
import { mattermostActionSchema } from './mattermost-inbound.schema';

const ENDPOINT = MATTERMOST_ENDPOINTS.actions;

/** The reply Mattermost reads: `update` is never sent, so the post stays as it is. */
interface ActionReply {
  ephemeral_text?: string;
}

const EXPIRED_NOTICE = 'This request is no longer valid; nothing was run.';
const NOT_A_MEMBER_NOTICE =
  'Only members of this channel can answer this request; nothing was run.';
const RETRY_NOTICE = 'Tollgate could not take that click just now; please try again.';
const NOT_EDITABLE_NOTICE = 'This request cannot be edited.';
const FORM_NOT_OPENED_NOTICE =
  'Tollgate could not open the edit form just now; nothing was run. Click again.';

/**
 * Button clicks become ToolInteractionResponse commands carrying the clicker. Mattermost signs
 * nothing, so a click is believed only when the HMAC in its context checks out, the journal
 * holds that prompt with that context's nonce on that very post, and the clicker is a member
 * of the post's channel (docs/protocol.md §5, revised 2026-11-30). The prompt is not touched here:
 * it changes only when the session answers.
 */
@Controller('mattermost')
export class MattermostActionsController {
  constructor(
    private readonly forwardClick: ForwardClick,
    private readonly prompts: PromptJournalRepository,
    private readonly gate: MattermostCallbackGate,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    private readonly openEditForm: OpenEditForm,
    private readonly dialogs: MattermostDialogs,
  ) {}

  @Post('actions')
  @HttpCode(200)
  async receive(@Body() raw: unknown, @ReceivedAt() receivedAt: number): Promise<ActionReply> {
    const body = this.gate.read(ENDPOINT, mattermostActionSchema, raw);
    const context = this.gate.verify(ENDPOINT, body?.context);
    const { sessionId, callId, optionKey } = context;
    const log = this.logger.child({ platform: 'mattermost', sessionId, callId });
    let check: ClickCheck;
    try {
      check = checkClick(
        context,
        {
          userId: str(body?.user_id),
          postId: str(body?.post_id),
          channelId: str(body?.channel_id),
        },
        await this.prompts.findByKey({ sessionId, callId }),
      );
    } catch (error) {
      return this.failed(error, log);
    }
    switch (check.kind) {
      case 'refuse':
        return this.gate.refuse(ENDPOINT, check.reason);
      case 'expired':
        // Its post already shows no buttons: the journal clears a prompt only once the edit
        // removing them went through. The session would only say the same, later.
        log.info('a click on a cleared prompt; telling the clicker');
        return { ephemeral_text: EXPIRED_NOTICE };
      case 'check_member':
        break;
    }
    const { userId, messageRef, promptRef } = check;
    try {
      if (!(await this.gate.isMember(messageRef.channelId, userId))) {
        log.warn('refused a Mattermost action by someone not in the channel');
        return { ephemeral_text: NOT_A_MEMBER_NOTICE };
      }
      if (optionKey === EDIT_ACTION) {
        return await this.openEdit(context, promptRef, str(body?.trigger_id), log);
      }
      const result = await this.forwardClick.execute(
        {
          promptRef,
          optionKey,
          clicker: await this.gate.clicker(userId),
          // docs/protocol.md §1: the click's trigger_id, else its post and clicker.
          commandId: mattermostCommandId(
            str(body?.trigger_id) ?? `${messageRef.messageId}:${userId}`,
          ),
          messageRef,
        },
        { receivedAt },
      );
      if (result.kind === 'forwarded') return {};
      log.info({ result: result.kind }, 'a click could not be forwarded');
      return { ephemeral_text: EXPIRED_NOTICE };
    } catch (error) {
      return this.failed(error, log);
    }
  }

  /**
   * G2: "Edit & approve" opens the dialog at once with the click's trigger_id, from the
   * binding's journal alone (the session service may be stopped). The dialog carries the
   * button's own signed context back, which is all its submission is believed for.
   */
  private async openEdit(
    context: ActionContext,
    promptRef: string,
    triggerId: string | undefined,
    log: Logger,
  ): Promise<ActionReply> {
    if (!triggerId) return { ephemeral_text: FORM_NOT_OPENED_NOTICE };
    const opened = await this.openEditForm.execute(promptRef);
    if (opened.kind !== 'form') {
      return {
        ephemeral_text: opened.kind === 'not_editable' ? NOT_EDITABLE_NOTICE : EXPIRED_NOTICE,
      };
    }
    const callbackId = `tge${randomBytes(12).toString('hex')}`;
    try {
      await this.dialogs.open(
        triggerId,
        renderMattermostEditDialog(opened.form, context, callbackId),
      );
      return {};
    } catch (error) {
      log.warn({ err: error }, 'could not open the Mattermost edit dialog; telling the clicker');
      return { ephemeral_text: FORM_NOT_OPENED_NOTICE };
    }
  }

  /** Mattermost never retries a callback: tell the clicker instead of failing the action. */
  private failed(error: unknown, log: Logger): ActionReply {
    log.error({ err: error }, 'could not take a Mattermost click');
    return { ephemeral_text: RETRY_NOTICE };
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
