import { InvalidPayload, PermanentFailure, type DeliveredMessage } from '@tollgate/messaging';
import { parseCommandForSubject, type Subjects } from '@tollgate/protocol';
import type { Logger } from 'pino';
import { classifyDatabaseError } from '@tollgate/persistence';
import { PartiallyCommittedDecision } from '../journal/session-store';
import { IllegalApprovalTransition } from '../session/domain/approval-turn.errors';
import type { HandleCommand } from './handle-command.usecase';

/**
 * The NATS adapter for commands: validate, hand to the use case, and say how to settle.
 * Invalid payloads, decisions the journal cannot hold and decisions that failed after a
 * checkpoint are dead-lettered (the consumer keeps going); database errors are classified by
 * the consumer host, so the database away is retried and a refused statement is not.
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
      if (error instanceof PartiallyCommittedDecision) {
        // The ledger holds the id, so a redelivery would be a mere duplicate: dead-letter it
        // once, with what went wrong, for an operator to see.
        const cause = classifyDatabaseError(error.cause)?.reason ?? failureText(error.cause);
        const settled = error.turnSettled ? 'turn_settled' : 'turn_left_in_flight';
        throw new PermanentFailure(`decision_failed_after_commit (${settled}): ${cause}`, {
          cause: error,
        });
      }
      throw error;
    }
  };
}

function failureText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
