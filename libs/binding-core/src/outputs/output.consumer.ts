import type { MessageHandler } from '@tollgate/messaging';
import type { Logger } from 'pino';
import type { HandleOutput } from './handle-output.usecase';

/**
 * The NATS adapter for outputs: hand the delivery to the use case and let what it threw (or
 * did not) settle the message. Nothing else lives here.
 */
export function outputMessageHandler(handleOutput: HandleOutput, logger: Logger): MessageHandler {
  return async (message) => {
    const handled = await handleOutput.handleMessage(message.subject, message.data);
    logger.debug(
      { subject: message.subject, streamSeq: message.streamSeq, ...handled },
      'output handled',
    );
  };
}
