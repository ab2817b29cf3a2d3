import {
  deriveSessionId,
  parseCommand,
  PROTOCOL_VERSION,
  type Conversation,
  type Person,
  type Principal,
  type RefusalReason,
  type UserMessage,
} from '@tollgate/protocol';
import type { KnownSessions } from '../journal/known-sessions.port';
import type { CommandPublisher } from './command-publisher.port';

/** A verified chat message the binding decided counts (PROTOCOL.md §1.1). */
export interface IncomingMessage {
  readonly conversation: Conversation;
  readonly sender: Person;
  readonly text: string;
  /** From the platform's own ids, so a redelivered event is the same command. */
  readonly commandId: string;
  readonly principal?: Principal;
}

export type MessageForwarded =
  | { readonly kind: 'forwarded'; readonly command: UserMessage }
  | { readonly kind: 'refused'; readonly reason: RefusalReason; readonly detail: string };

export interface ForwardMessageDeps {
  readonly sessions: KnownSessions;
  readonly commands: CommandPublisher;
  readonly now: () => Date;
}

/** Turns a chat message into a `UserMessage` and remembers its session. */
export class ForwardMessage {
  constructor(private readonly deps: ForwardMessageDeps) {}

  async execute(message: IncomingMessage): Promise<MessageForwarded> {
    const sessionId = deriveSessionId(message.conversation);
    const command: UserMessage = {
      type: 'UserMessage',
      v: PROTOCOL_VERSION,
      id: message.commandId,
      sessionId,
      conversation: message.conversation,
      occurredAt: this.deps.now().toISOString(),
      sender: message.sender,
      text: message.text,
      ...(message.principal === undefined ? {} : { principal: message.principal }),
    };
    // Every boundary validates: a text over the limit is refused here, not dead-lettered later.
    const checked = parseCommand(command);
    if (!checked.ok) return { kind: 'refused', reason: checked.reason, detail: checked.detail };
    // Remembered before publishing: once the user has addressed the bot in a thread, the
    // thread counts, even if this publish must be retried by the platform.
    await this.deps.sessions.remember(sessionId, message.conversation);
    await this.deps.commands.publish(command);
    return { kind: 'forwarded', command };
  }
}
