import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { Command } from '@tollgate/protocol';
import { SessionRuntime } from '../session-runtime.service';
import { ParseCommandPipe } from './parse-command.pipe';
import { SESSION_COMMANDS_PATTERN } from './session-commands.pattern';

/**
 * Commands as a NestJS event handler: a thin adapter over the command handler SessionRuntime
 * wires once this instance leads, so guards, interceptors, pipes and filters apply here. The
 * delivery is parsed by a pipe: a message the protocol refuses never reaches the handler.
 */
@Controller()
export class CommandsController {
  constructor(private readonly runtime: SessionRuntime) {}

  @EventPattern(SESSION_COMMANDS_PATTERN)
  handle(@Payload(ParseCommandPipe) command: Command): Promise<void> {
    return this.runtime.handleCommand(command);
  }
}
