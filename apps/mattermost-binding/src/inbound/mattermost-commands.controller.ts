import {
  Body,
  Controller,
  HttpCode,
  Inject,
  Post,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import { ForwardMessage } from '@tollgate/binding-core';
import { SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import type { MattermostBindingConfig } from '../mattermost-binding.config';
import { MATTERMOST_CONFIG } from '../mattermost-binding.tokens';
import {
  classifyMattermostCommand,
  commandTokenMatches,
  type MattermostCommandBody,
} from './mattermost-command.rules';

/**
 * A slash command or an outgoing webhook (form-encoded or JSON), checked against
 * MATTERMOST_COMMAND_TOKEN, forwarded as a UserMessage and answered at once.
 */
@Controller('mattermost')
export class MattermostCommandsController {
  constructor(
    private readonly forwardMessage: ForwardMessage,
    @Inject(MATTERMOST_CONFIG) private readonly config: MattermostBindingConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  @Post('commands')
  @HttpCode(200)
  async receive(
    @Body() body: MattermostCommandBody | undefined,
  ): Promise<{ response_type?: 'ephemeral'; text?: string }> {
    if (!commandTokenMatches(this.config.MATTERMOST_COMMAND_TOKEN, body?.token)) {
      this.logger.warn('refused a Mattermost command without the command token');
      throw new UnauthorizedException({ reason: 'bad_token' });
    }
    const verdict = classifyMattermostCommand(body ?? {});
    if (verdict.kind === 'ignore') {
      this.logger.debug({ reason: verdict.reason }, 'ignored a Mattermost command');
      return {};
    }
    try {
      const result = await this.forwardMessage.execute(verdict.message);
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
