import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { HandleOutput } from './handle-output.usecase';
import { type ParsedOutput, ParseOutputPipe } from './parse-output.pipe';

/** The pattern the binding's output consumer feeds (declared by BindingOutputConsumer). */
export const BINDING_OUTPUTS_PATTERN = 'binding.outputs';

/**
 * The NATS adapter for outputs, as a NestJS event handler: the delivery is parsed by a pipe (a
 * message the protocol refuses never reaches the handler), handed to the use case, and what
 * it threw (or did not) settles the message. Guards, interceptors, pipes and
 * filters a binding adds apply here as to any Nest handler.
 */
@Controller()
export class BindingOutputsController {
  private readonly logger: Logger;

  constructor(
    private readonly handleOutput: HandleOutput,
    @Inject(SERVICE_LOGGER) logger: Logger,
  ) {
    this.logger = logger.child({ component: 'outputs' });
  }

  @EventPattern(BINDING_OUTPUTS_PATTERN)
  async handle(@Payload(ParseOutputPipe) { output, message }: ParsedOutput): Promise<void> {
    const handled = await this.handleOutput.handleOutput(output, message.park);
    if (this.logger.isLevelEnabled('debug')) {
      this.logger.debug(
        { subject: message.subject, streamSeq: message.streamSeq, ...handled },
        'output handled',
      );
    }
  }
}
