import type { JetStreamPublisher } from '@tollgate/messaging';
import { commandSubject, encodeMessage, type Command, type Subjects } from '@tollgate/protocol';
import type { CommandPublisher, CommandPublishOptions } from './command-publisher.port';
import { COMMAND_PUBLISH_DEADLINE_MS } from './publish-deadline';

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
    /** The bound of a publish given no deadline (one no platform request waits for). */
    private readonly deadlineMs: number = COMMAND_PUBLISH_DEADLINE_MS,
  ) {}

  /**
   * Resolves once JetStream acknowledged the command; rejects with CommandPublishTimeout when
   * that did not happen by the deadline, connecting included (R1): an inbound endpoint must
   * answer its platform within 3 s either way, and an answer must never claim a command that
   * was not stored. A deadline already past publishes nothing: an ack wait of a millisecond
   * could only fail, or store a command its sender is then told to send again.
   */
  async publish(command: Command, options: CommandPublishOptions = {}): Promise<void> {
    const deadline = options.deadline ?? Date.now() + this.deadlineMs;
    const publisher = await beforeDeadline(() => this.publisher(), deadline, 'NATS not ready');
    const left = deadline - Date.now();
    if (left <= 0) throw new CommandPublishTimeout(`no time left to publish (${-left} ms late)`);
    await publisher.publish(commandSubject(this.subjects, command), encodeMessage(command), {
      msgId: command.id,
      timeoutMs: left,
    });
  }
}

export class CommandPublishTimeout extends Error {
  override readonly name = 'CommandPublishTimeout';
}

/** `start()`'s result if it comes before `deadline`; `start` is not called once it passed. */
async function beforeDeadline<T>(
  start: () => Promise<T>,
  deadline: number,
  what: string,
): Promise<T> {
  const ms = deadline - Date.now();
  if (ms <= 0) throw new CommandPublishTimeout(`${what}: the deadline passed ${-ms} ms ago`);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CommandPublishTimeout(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([start(), late]).finally(() => clearTimeout(timer));
}
