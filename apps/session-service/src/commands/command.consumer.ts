import { PermanentFailure } from '@tollgate/messaging';
import type { Command } from '@tollgate/protocol';
import type { Logger } from 'pino';
import { SessionUnreplayable } from '../journal/session-store';
import { IllegalApprovalTransition } from '@tollgate/session-read-model';
import type { Submitted } from './session-scheduler';

/**
 * The NATS adapter for commands, after ParseCommandPipe parsed them at the `@EventPattern`
 * boundary: hand to the scheduler, and say how to settle. The scheduler answers once the
 * command is durable (its decision's first commit, or its row in the session's inbox), so a
 * message is never held for the length of a turn; what fails after that is the scheduler's to
 * settle (SessionScheduler). Decisions the journal cannot hold and quarantined sessions are
 * dead-lettered (the consumer keeps going); database errors are classified by the consumer
 * host, so the database away is retried and a refused statement is not.
 */
export function commandMessageHandler(
  scheduler: { submit(command: Command): Promise<Submitted> },
  logger: Logger,
): (command: Command) => Promise<void> {
  return async (command) => {
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
