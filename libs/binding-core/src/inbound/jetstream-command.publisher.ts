import type { JetStreamPublisher } from '@tollgate/messaging';
import { commandSubject, encodeMessage, type Command, type Subjects } from '@tollgate/protocol';
import type { CommandPublisher } from './command-publisher.port';

/**
 * {@link CommandPublisher} on `<prefix>.cmd.<platform>.<sessionId>.<kind>`, `Nats-Msg-Id` = the
 * command id (PROTOCOL.md §1). JetStream deduplicates that header across the whole stream, so
 * each binding builds ids no other platform's can equal (Slack's and Mattermost's carry their
 * platform's name; Discord's are bare snowflakes). The publisher is reached lazily: a click
 * may arrive while the service is still connecting, and should then wait.
 */
export class JetStreamCommandPublisher implements CommandPublisher {
  constructor(
    private readonly subjects: Subjects,
    private readonly publisher: () => Promise<JetStreamPublisher>,
  ) {}

  async publish(command: Command): Promise<void> {
    const publisher = await this.publisher();
    await publisher.publish(commandSubject(this.subjects, command), encodeMessage(command), {
      msgId: command.id,
    });
  }
}
