import type { Command } from '@tollgate/protocol';

export interface CommandPublishOptions {
  /**
   * The instant (epoch ms) by which the command must be stored, else the publish fails. An
   * inbound request's is counted from its arrival (publishDeadline); without one, the
   * publisher's own bound runs from the call.
   */
  readonly deadline?: number;
}

/**
 * Sends a command to the session service. Resolves once it is stored durably; the command id
 * is its `Nats-Msg-Id`, so a platform's retry of the same action is stored once.
 */
export interface CommandPublisher {
  publish(command: Command, options?: CommandPublishOptions): Promise<void>;
}
