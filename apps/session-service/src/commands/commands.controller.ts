import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { DeliveredMessage } from '@tollgate/messaging';
import { SessionRuntime } from '../session-runtime.service';
import { SESSION_COMMANDS_PATTERN } from './session-commands.pattern';

/**
 * Commands as a NestJS event handler: a thin adapter over the command handler SessionRuntime
 * wires once this instance leads, so guards, interceptors, pipes and filters apply here.
 */
@Controller()
export class CommandsController {
  constructor(private readonly runtime: SessionRuntime) {}

  @EventPattern(SESSION_COMMANDS_PATTERN)
  handle(@Payload() message: DeliveredMessage): Promise<void> {
    return this.runtime.handleCommand(message);
  }
}
