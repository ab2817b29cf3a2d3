import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { DeliveredMessage } from '@tollgate/messaging';
import { ApplyDecision } from './apply-decision.usecase';

export const DECISIONS_PATTERN = 'approval-api.decisions';

/** Decision events as a NestJS event handler: what the use case throws settles the message. */
@Controller()
export class DecisionsController {
  constructor(private readonly applyDecision: ApplyDecision) {}

  @EventPattern(DECISIONS_PATTERN)
  handle(@Payload() message: DeliveredMessage): Promise<void> {
    return this.applyDecision.handle(message.subject, message.data);
  }
}
