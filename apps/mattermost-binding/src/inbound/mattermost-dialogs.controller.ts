import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import {
  EDIT_ACTION,
  ForwardClick,
  OpenEditForm,
  PromptJournalRepository,
} from '@tollgate/binding-core';
import { EDIT_OPTION_KEY } from '@tollgate/protocol';
import { ReceivedAt, SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { EDIT_ELEMENT_PREFIX } from '../rendering/mattermost-edit-dialog.renderer';
import { MattermostCallbackGate } from './mattermost-callback.gate';
import { holdsNonce } from './mattermost-click.rules';
import { mattermostCommandId } from './mattermost-command-id';
import { MATTERMOST_ENDPOINTS } from './mattermost-endpoints';
import { MATTERMOST_ID_PATTERN } from './mattermost-id';
import { mattermostDialogSubmissionSchema } from './mattermost-inbound.schema';

const ENDPOINT = MATTERMOST_ENDPOINTS.dialogs;

/** What the server reads back: `error` keeps the dialog open and shows it; `{}` closes it. */
interface DialogReply {
  error?: string;
}

const EXPIRED = 'This request is no longer valid; nothing was run.';
const NOT_A_MEMBER = 'Only members of this channel can answer this request; nothing was run.';
const RETRY = 'Tollgate could not take this edit just now; nothing was run. Submit again.';

/**
 * G2: `POST /mattermost/dialogs`, the "Edit & approve" dialog's submission. Mattermost signs
 * nothing, so it is believed as a click is (docs/protocol.md §5): the dialog's `state` is the
 * edit button's HMAC-signed context, whose nonce must be the one the journal holds for the
 * prompt, still pending, and the submitter a member of the prompt's channel (the journal's,
 * never the request's). Then it goes to the session as an approve_once with the texts typed,
 * answered only once JetStream stored it.
 */
@Controller('mattermost')
export class MattermostDialogsController {
  constructor(
    private readonly forwardClick: ForwardClick,
    private readonly openEditForm: OpenEditForm,
    private readonly prompts: PromptJournalRepository,
    private readonly gate: MattermostCallbackGate,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  @Post('dialogs')
  @HttpCode(200)
  async submit(@Body() raw: unknown, @ReceivedAt() receivedAt: number): Promise<DialogReply> {
    const body = this.gate.read(ENDPOINT, mattermostDialogSubmissionSchema, raw);
    if (body.cancelled === true) return {};
    let state: unknown;
    try {
      state = JSON.parse(body.state ?? '');
    } catch {
      return this.gate.refuse(ENDPOINT, 'missing_context');
    }
    const { sessionId, callId, optionKey, nonce } = this.gate.verify(ENDPOINT, state);
    const userId = body.user_id;
    if (optionKey !== EDIT_ACTION || !body.callback_id) {
      return this.gate.refuse(ENDPOINT, 'not_an_edit');
    }
    if (!userId || !MATTERMOST_ID_PATTERN.test(userId)) {
      return this.gate.refuse(ENDPOINT, 'incomplete_request');
    }
    const log = this.logger.child({ platform: 'mattermost', sessionId, callId });
    let journaled: Awaited<ReturnType<PromptJournalRepository['findByKey']>>;
    try {
      journaled = await this.prompts.findByKey({ sessionId, callId });
    } catch (error) {
      return this.failed(error, log);
    }
    // Outside the try: a refusal is a 401 counted at debug, never a logged failure to retry.
    if (!holdsNonce(journaled, nonce)) return this.gate.refuse(ENDPOINT, 'unknown_nonce');
    try {
      if (journaled.state.status !== 'pending') return { error: EXPIRED };
      const { messageRef } = journaled.state;
      if (!(await this.gate.isMember(messageRef.channelId, userId))) {
        log.warn('refused a Mattermost edit by someone not in the channel');
        return { error: NOT_A_MEMBER };
      }
      const opened = await this.openEditForm.execute(journaled.promptRef);
      if (opened.kind !== 'form') return { error: EXPIRED };
      const submission = body.submission ?? {};
      const edits = opened.form.fields.map((field, index) => {
        const key = `${EDIT_ELEMENT_PREFIX}${index}`;
        const value = Object.hasOwn(submission, key) ? submission[key] : undefined;
        return { name: field.name, text: typeof value === 'string' ? value : '' };
      });
      const result = await this.forwardClick.execute(
        {
          promptRef: journaled.promptRef,
          optionKey: EDIT_OPTION_KEY,
          clicker: await this.gate.clicker(userId),
          // docs/protocol.md §1: an edit's command id is its dialog's callback id and submitter.
          commandId: mattermostCommandId(`dialog:${body.callback_id}:${userId}`),
          messageRef,
          edits,
        },
        { receivedAt },
      );
      if (result.kind === 'forwarded') return {};
      log.info({ result: result.kind }, 'an edit could not be forwarded');
      return { error: result.kind === 'refused' ? `Not sent: ${result.detail}` : EXPIRED };
    } catch (error) {
      return this.failed(error, log);
    }
  }

  /** The dialog stays open with the reason, so the approver can submit again. */
  private failed(error: unknown, log: Logger): DialogReply {
    log.error({ err: error }, 'could not take a Mattermost edit');
    return { error: RETRY };
  }
}
