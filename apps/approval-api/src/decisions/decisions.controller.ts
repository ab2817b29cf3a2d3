import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { ApprovalDecided } from '@tollgate/protocol';
import { ApplyDecision } from './apply-decision.usecase';
import { ParseDecisionPipe } from './parse-decision.pipe';

export const DECISIONS_PATTERN = 'approval-api.decisions';

/**
 * Decision events as a NestJS event handler: `ParseDecisionPipe` refuses what is malformed or
 * misrouted (dead-lettered with its reason), and what the use case throws settles the message.
 */
@Controller()
export class DecisionsController {
  constructor(private readonly applyDecision: ApplyDecision) {}

  @EventPattern(DECISIONS_PATTERN)
  handle(@Payload(ParseDecisionPipe) event: ApprovalDecided): Promise<void> {
    return this.applyDecision.handle(event);
  }
}
