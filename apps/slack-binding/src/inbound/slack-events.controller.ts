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
import { ForwardMessage, HasSession } from '@tollgate/binding-core';
import { SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { classifySlackEvent, type SlackMessageEvent } from './slack-event.rules';
import { SlackSignatureGuard } from './slack-signature.guard';

interface SlackEventEnvelope {
  type?: string;
  challenge?: string;
  team_id?: string;
  event?: SlackMessageEvent;
}

/**
 * The Events API: URL verification, and messages that count (PROTOCOL.md §1.1) forwarded as
 * UserMessage commands. A message that cannot be published is answered 503, so Slack retries
 * it rather than losing it; the command id makes the retry harmless.
 */
@Controller('slack')
@UseGuards(SlackSignatureGuard)
export class SlackEventsController {
  constructor(
    private readonly forwardMessage: ForwardMessage,
    private readonly hasSession: HasSession,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  @Post('events')
  @HttpCode(200)
  async receive(
    @Body() envelope: SlackEventEnvelope,
  ): Promise<{ challenge: string } | { ok: true }> {
    if (envelope.type === 'url_verification' && typeof envelope.challenge === 'string') {
      return { challenge: envelope.challenge };
    }
    if (envelope.type !== 'event_callback' || !envelope.event || !envelope.team_id) {
      throw new BadRequestException({ reason: 'not_an_event_callback' });
    }
    const verdict = classifySlackEvent(envelope.team_id, envelope.event);
    if (verdict.kind === 'ignore') {
      this.logger.debug({ reason: verdict.reason }, 'ignored a Slack event');
      return { ok: true };
    }
    if (
      verdict.kind === 'forward_if_session' &&
      !(await this.hasSession.execute(verdict.message.conversation))
    ) {
      this.logger.debug('ignored a thread reply in a thread without a session');
      return { ok: true };
    }
    try {
      const result = await this.forwardMessage.execute(verdict.message);
      if (result.kind === 'refused') {
        this.logger.warn(
          { reason: result.reason, detail: result.detail },
          'refused a Slack message',
        );
      }
    } catch (error) {
      this.logger.error({ err: error }, 'could not forward a Slack message; Slack will retry');
      throw new ServiceUnavailableException({ reason: 'publish_failed' });
    }
    return { ok: true };
  }
}
