import type { Command } from '@tollgate/protocol';

/**
 * Sends a command to the session service. Resolves once it is stored durably; the command id
 * is its `Nats-Msg-Id`, so a platform's retry of the same action is stored once.
 */
export interface CommandPublisher {
  publish(command: Command): Promise<void>;
}
