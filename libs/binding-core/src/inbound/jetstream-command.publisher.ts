import type { JetStreamPublisher } from '@tollgate/messaging';
import {
  commandMsgId,
  commandSubject,
  encodeMessage,
  type Command,
  type Subjects,
} from '@tollgate/protocol';
import type { CommandPublisher } from './command-publisher.port';

/**
 * {@link CommandPublisher} on `<prefix>.cmd.<sessionId>.<kind>`. The publisher is reached
 * lazily: a click may arrive while the service is still connecting, and should then wait.
 */
export class JetStreamCommandPublisher implements CommandPublisher {
  constructor(
    private readonly subjects: Subjects,
    private readonly publisher: () => Promise<JetStreamPublisher>,
  ) {}

  async publish(command: Command): Promise<void> {
    const publisher = await this.publisher();
    await publisher.publish(commandSubject(this.subjects, command), encodeMessage(command), {
      msgId: commandMsgId(command),
    });
  }
}
