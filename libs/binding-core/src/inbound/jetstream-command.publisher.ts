import type { JetStreamPublisher } from '@tollgate/messaging';
import { commandSubject, encodeMessage, type Command, type Subjects } from '@tollgate/protocol';
import type { CommandPublisher } from './command-publisher.port';

/**
 * {@link CommandPublisher} on `<prefix>.cmd.<platform>.<sessionId>.<kind>`, `Nats-Msg-Id` = the
 * command id (docs/protocol.md §1). JetStream deduplicates that header across the whole stream, so
 * each binding builds ids no other platform's can equal (Slack's and Mattermost's carry their
 * platform's name; Discord's are bare snowflakes). The publisher is reached lazily: a click
 * may arrive while the service is still connecting, and should then wait.
 */
export class JetStreamCommandPublisher implements CommandPublisher {
  constructor(
    private readonly subjects: Subjects,
    private readonly publisher: () => Promise<JetStreamPublisher>,
    private readonly deadlineMs: number = COMMAND_PUBLISH_DEADLINE_MS,
  ) {}

  /**
   * Resolves once JetStream acknowledged the command; rejects when that did not happen within
   * the deadline, connecting included (R1): an inbound endpoint must answer its platform
   * within 3 s either way, and an answer must never claim a command that was not stored.
   */
  async publish(command: Command): Promise<void> {
    const deadline = Date.now() + this.deadlineMs;
    const publisher = await withDeadline(this.publisher(), this.deadlineMs);
    await publisher.publish(commandSubject(this.subjects, command), encodeMessage(command), {
      msgId: command.id,
      timeoutMs: Math.max(1, deadline - Date.now()),
    });
  }
}

/**
 * Slack and Discord give an inbound request 3 s; this leaves a second for everything else
 * the endpoint does (signature, journal lookups, the answer itself).
 */
export const COMMAND_PUBLISH_DEADLINE_MS = 2_000;

export class CommandPublishTimeout extends Error {
  override readonly name = 'CommandPublishTimeout';
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new CommandPublishTimeout(`NATS not ready within ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
