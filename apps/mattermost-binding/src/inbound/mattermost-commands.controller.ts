import {
  BadRequestException,
  Body,
  Controller,
  HttpCode,
  Inject,
  Post,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import { ForwardMessage, readAnswerWord, readInbound } from '@tollgate/binding-core';
import { InboundRefusals, ReceivedAt, SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import type { MattermostBindingConfig } from '../mattermost-binding.config';
import { MATTERMOST_CONFIG } from '../mattermost-binding.tokens';
import {
  classifyMattermostCommand,
  commandTokenMatches,
  type InboundMattermostMessage,
} from './mattermost-command.rules';
import { MATTERMOST_ENDPOINTS } from './mattermost-endpoints';
import { type MattermostCommand, mattermostCommandSchema } from './mattermost-inbound.schema';
import { VerifyTypedAnswer } from './verify-typed-answer.usecase';

type CommandReply = { response_type?: 'ephemeral'; text?: string };

/**
 * A slash command has no post to check its sender against, and its text reaches the binding
 * on the command token's word alone: an answer word there answers nothing and is not sent on.
 */
export const SLASH_ANSWER_HINT =
  'A slash command cannot answer a request: use its buttons, or reply in its thread. ' +
  'Your message was not sent to the agent.';

/**
 * A slash command or an outgoing webhook (form-encoded or JSON), checked against
 * MATTERMOST_COMMAND_TOKEN, forwarded as a UserMessage and answered at once. A body with the
 * token that Tollgate cannot read is answered 400 with its reason: Mattermost retries neither
 * a slash command nor an outgoing webhook, and shows a slash command's caller the failure.
 */
@Controller('mattermost')
export class MattermostCommandsController {
  constructor(
    private readonly forwardMessage: ForwardMessage,
    private readonly verifyTypedAnswer: VerifyTypedAnswer,
    @Inject(MATTERMOST_CONFIG) private readonly config: MattermostBindingConfig,
    private readonly refusals: InboundRefusals,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  @Post('commands')
  @HttpCode(200)
  async receive(@Body() raw: unknown, @ReceivedAt() receivedAt: number): Promise<CommandReply> {
    const token =
      typeof raw === 'object' && raw !== null ? (raw as { token?: unknown }).token : undefined;
    if (!commandTokenMatches(this.config.MATTERMOST_COMMAND_TOKEN, token)) {
      this.refusals.unauthenticated(MATTERMOST_ENDPOINTS.commands, 'bad_token');
      throw new UnauthorizedException({ reason: 'bad_token' });
    }
    const body = readInbound(mattermostCommandSchema, raw);
    if (!body.ok) {
      this.refusals.authenticated(MATTERMOST_ENDPOINTS.commands, 'invalid_payload', {
        detail: body.detail,
      });
      throw new BadRequestException({ reason: 'invalid_payload', detail: body.detail });
    }
    const verdict = classifyMattermostCommand(body.value);
    if (verdict.kind === 'ignore') {
      this.logger.debug({ reason: verdict.reason }, 'ignored a Mattermost command');
      return {};
    }
    let message = verdict.message;
    // docs/protocol.md §1.3 (X13): an answer word is taken only from a post the server shows.
    if (readAnswerWord(message.text) !== undefined) {
      if (message.source === 'slash_command') {
        this.logger.info('an answer word by slash command; hinted, not sent');
        return { response_type: 'ephemeral', text: SLASH_ANSWER_HINT };
      }
      message = await this.verified(body.value, message);
    }
    try {
      const result = await this.forwardMessage.execute(message, { receivedAt });
      // A typed answer that answered nothing: its private hint says why; "Sent" would not hold.
      if (result.kind === 'hinted') return {};
      if (result.kind === 'refused') {
        this.logger.warn(
          { reason: result.reason, detail: result.detail },
          'refused a Mattermost message',
        );
        return message.source === 'slash_command'
          ? { response_type: 'ephemeral', text: `Tollgate could not take that: ${result.detail}` }
          : {};
      }
    } catch (error) {
      this.logger.error({ err: error }, 'could not forward a Mattermost message');
      throw new ServiceUnavailableException({ reason: 'publish_failed' });
    }
    // An outgoing webhook's reply text would be posted in the channel: say nothing there.
    return message.source === 'slash_command'
      ? { response_type: 'ephemeral', text: 'Sent to Tollgate.' }
      : {};
  }

  /**
   * The typed answer as the server confirms it. When it does not, the request (the command
   * token's word about a post that is not so) gets 401 with the reason, nothing is published
   * and the prompt stays pending.
   */
  private async verified(
    body: MattermostCommand,
    message: InboundMattermostMessage,
  ): Promise<InboundMattermostMessage> {
    let verdict;
    try {
      verdict = await this.verifyTypedAnswer.execute(
        {
          postId: body.post_id,
          userId: message.sender.id,
          channelId: message.conversation.channelId,
          text: body.text ?? '',
          ...(body.root_id === undefined ? {} : { rootId: body.root_id }),
        },
        message,
      );
    } catch (error) {
      this.logger.error({ err: error }, 'could not check a Mattermost typed answer');
      throw new ServiceUnavailableException({ reason: 'lookup_failed' });
    }
    if (verdict.kind === 'verified') return verdict.message;
    this.refusals.authenticated(MATTERMOST_ENDPOINTS.commands, verdict.reason);
    throw new UnauthorizedException({ reason: verdict.reason });
  }
}
