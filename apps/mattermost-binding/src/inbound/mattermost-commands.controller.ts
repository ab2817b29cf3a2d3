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
import { ForwardMessage, readInbound } from '@tollgate/binding-core';
import { InboundRefusals, SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import type { MattermostBindingConfig } from '../mattermost-binding.config';
import { MATTERMOST_CONFIG } from '../mattermost-binding.tokens';
import { classifyMattermostCommand, commandTokenMatches } from './mattermost-command.rules';
import { MATTERMOST_ENDPOINTS } from './mattermost-endpoints';
import { mattermostCommandSchema } from './mattermost-inbound.schema';

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
    @Inject(MATTERMOST_CONFIG) private readonly config: MattermostBindingConfig,
    private readonly refusals: InboundRefusals,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  @Post('commands')
  @HttpCode(200)
  async receive(@Body() raw: unknown): Promise<{ response_type?: 'ephemeral'; text?: string }> {
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
    try {
      const result = await this.forwardMessage.execute(verdict.message);
      // A typed answer that answered nothing: its private hint says why; "Sent" would not hold.
      if (result.kind === 'hinted') return {};
      if (result.kind === 'refused') {
        this.logger.warn(
          { reason: result.reason, detail: result.detail },
          'refused a Mattermost message',
        );
        return verdict.message.source === 'slash_command'
          ? { response_type: 'ephemeral', text: `Tollgate could not take that: ${result.detail}` }
          : {};
      }
    } catch (error) {
      this.logger.error({ err: error }, 'could not forward a Mattermost message');
      throw new ServiceUnavailableException({ reason: 'publish_failed' });
    }
    // An outgoing webhook's reply text would be posted in the channel: say nothing there.
    return verdict.message.source === 'slash_command'
      ? { response_type: 'ephemeral', text: 'Sent to Tollgate.' }
      : {};
  }
}
