import { InvalidPayload, PermanentFailure, type DeliveredMessage } from '@tollgate/messaging';
import { type Command, parseCommandForSubject, type Subjects } from '@tollgate/protocol';
import type { Logger } from 'pino';
import { SessionUnreplayable } from '../journal/session-store';
import { IllegalApprovalTransition } from '@tollgate/session-read-model';
import type { Submitted } from './session-scheduler';

/**
 * The NATS adapter for commands: validate, hand to the scheduler, and say how to settle.
 * The scheduler answers once the command is durable (its decision's first commit, or its row
 * in the session's inbox), so a message is never held for the length of a turn; what fails
 * after that is the scheduler's to settle (SessionScheduler). Invalid payloads, decisions the
 * journal cannot hold and quarantined sessions are dead-lettered (the consumer keeps going);
 * database errors are classified by the consumer host, so the database away is retried and a
 * refused statement is not.
 */
export function commandMessageHandler(
  subjects: Subjects,
  scheduler: { submit(command: Command): Promise<Submitted> },
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
    let result: Submitted;
    try {
      result = await scheduler.submit(command);
    } catch (error) {
      if (error instanceof IllegalApprovalTransition) {
        throw new PermanentFailure(`illegal_transition: ${error.message}`, { cause: error });
      }
      if (error instanceof SessionUnreplayable) {
        throw new PermanentFailure(`session_quarantined: ${error.message}`, { cause: error });
      }
      throw error;
    }
    if (result === 'quarantined') {
      throw new PermanentFailure(`session_quarantined: session ${command.sessionId}`);
    }
    logger.debug(
      { sessionId: command.sessionId, commandId: command.id, type: command.type, result },
      'command handled',
    );
  };
}
