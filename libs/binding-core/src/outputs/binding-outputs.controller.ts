import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { DeliveredMessage } from '@tollgate/messaging';
import { SERVICE_LOGGER } from '@tollgate/service-runtime';
import type { Logger } from 'pino';
import { HandleOutput } from './handle-output.usecase';

/** The pattern the binding's output consumer feeds (declared by BindingOutputConsumer). */
export const BINDING_OUTPUTS_PATTERN = 'binding.outputs';

/**
 * The NATS adapter for outputs, as a NestJS event handler: hand the delivery to the use case
 * and let what it threw (or did not) settle the message. Guards, interceptors, pipes and
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
  async handle(@Payload() message: DeliveredMessage): Promise<void> {
    const handled = await this.handleOutput.handleMessage(
      message.subject,
      message.data,
      message.park,
    );
    if (this.logger.isLevelEnabled('debug')) {
      this.logger.debug(
        { subject: message.subject, streamSeq: message.streamSeq, ...handled },
        'output handled',
      );
    }
  }
}
