import { InvalidPayload, PermanentFailure, type DeliveredMessage } from '@tollgate/messaging';
import { parseCommandForSubject, type Subjects } from '@tollgate/protocol';
import type { Logger } from 'pino';
import { IllegalApprovalTransition } from '../session/domain/approval-turn.errors';
import type { HandleCommand } from './handle-command.usecase';

/**
 * The NATS adapter for commands: validate, hand to the use case, and say how to settle.
 * Invalid payloads and decisions the journal cannot hold are dead-lettered (the consumer
 * keeps going); anything else — the database away, say — is retried.
 */
export function commandMessageHandler(
  subjects: Subjects,
  handleCommand: HandleCommand,
  logger: Logger,
): (message: DeliveredMessage) => Promise<void> {
  return async (message) => {
    const parsed = parseCommandForSubject(subjects, message.subject, message.data);
    if (!parsed.ok) {
      // Not malformed but misrouted: the sender's NATS permissions cover the subject's platform,
      // so a command for another platform's session is refused under its own reason.
      if (parsed.reason === 'platform_mismatch') {
        throw new PermanentFailure(`${parsed.reason}: ${parsed.detail}`);
      }
      throw new InvalidPayload(`${parsed.reason}: ${parsed.detail}`);
    }
    const command = parsed.value;
    try {
      const result = await handleCommand.execute(command);
      logger.debug(
        { sessionId: command.sessionId, commandId: command.id, type: command.type, result },
        'command handled',
      );
    } catch (error) {
      if (error instanceof IllegalApprovalTransition) {
        throw new PermanentFailure(`illegal_transition: ${error.message}`, { cause: error });
      }
      throw error;
    }
  };
}
