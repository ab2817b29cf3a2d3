import {
  Body,
  Controller,
  HttpCode,
  Inject,
  Post,
  ServiceUnavailableException,
  UseGuards,
} from '@nestjs/common';
import { ForwardMessage, HasSession, readInbound } from '@tollgate/binding-core';
import { InboundRefusals, ReceivedAt, SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { SLACK_ENDPOINTS } from './slack-endpoints';
import { classifySlackEvent } from './slack-event.rules';
import {
  slackEventEnvelopeSchema,
  slackEventTypeSchema,
  slackMessageEventSchema,
} from './slack-inbound.schema';
import { SlackSignatureGuard } from './slack-signature.guard';

/** Events whose type Tollgate reads further; every other event is acknowledged and ignored. */
const MESSAGE_EVENT_TYPES = new Set(['message', 'app_mention']);

type EventsReply = { challenge: string } | { ok: true } | { ok: false; reason: string };

/**
 * The Events API: URL verification, and messages that count (docs/protocol.md §1.1) forwarded as
 * UserMessage commands. A message that cannot be published is answered 503, so Slack retries
 * it rather than losing it; the command id makes the retry harmless. A signed body Tollgate
 * cannot read is answered 200 with its reason: Slack retries every non-2xx answer, and a
 * retry of the same bytes can only be refused again.
 */
@Controller('slack')
@UseGuards(SlackSignatureGuard)
export class SlackEventsController {
  constructor(
    private readonly forwardMessage: ForwardMessage,
    private readonly hasSession: HasSession,
    private readonly refusals: InboundRefusals,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  @Post('events')
  @HttpCode(200)
  async receive(@Body() body: unknown, @ReceivedAt() receivedAt: number): Promise<EventsReply> {
    const envelope = readInbound(slackEventEnvelopeSchema, body);
    if (!envelope.ok) return this.unreadable(envelope.detail);
    const { type, challenge, team_id: teamId, event } = envelope.value;
    if (type === 'url_verification' && challenge !== undefined) return { challenge };
    if (type !== 'event_callback') {
      this.logger.debug({ type }, 'ignored a Slack envelope that is not an event');
      return { ok: true };
    }
    if (!teamId) return this.unreadable('team_id: required');
    const eventType = readInbound(slackEventTypeSchema, event);
    if (!eventType.ok) return this.unreadable(`event.${eventType.detail}`);
    if (!MESSAGE_EVENT_TYPES.has(eventType.value.type)) {
      this.logger.debug({ type: eventType.value.type }, 'ignored a Slack event');
      return { ok: true };
    }
    const message = readInbound(slackMessageEventSchema, event);
    if (!message.ok) return this.unreadable(`event.${message.detail}`);
    const verdict = classifySlackEvent(teamId, message.value);
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
      const result = await this.forwardMessage.execute(verdict.message, { receivedAt });
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

  private unreadable(detail: string): EventsReply {
    this.refusals.authenticated(SLACK_ENDPOINTS.events, 'invalid_payload', { detail });
    return { ok: false, reason: 'invalid_payload' };
  }
}
