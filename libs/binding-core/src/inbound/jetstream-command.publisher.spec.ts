import type { JetStreamPublisher } from '@tollgate/messaging';
import { type Command, type Conversation, deriveSessionId, Subjects } from '@tollgate/protocol';
import { CommandPublishTimeout, JetStreamCommandPublisher } from './jetstream-command.publisher';
import { COMMAND_PUBLISH_DEADLINE_MS, publishDeadline } from './publish-deadline';

const conversation: Conversation = {
  platform: 'slack',
  workspaceId: 'T1',
  channelId: 'C1',
  threadId: '1.2',
};
const command: Command = {
  type: 'UserMessage',
  v: 1,
  id: 'Ev-deadline-1',
  sessionId: deriveSessionId(conversation),
  conversation,
  occurredAt: '2026-12-01T00:00:00.000Z',
  sender: { id: 'U1' },
  text: 'hello',
};

/** A NATS publisher that acks at once and keeps the ack wait each publish was given. */
function ackingNats() {
  const timeouts: (number | undefined)[] = [];
  const nats = {
    publish: async (_subject: string, _data: unknown, options: { timeoutMs?: number }) => {
      timeouts.push(options.timeoutMs);
      return { stream: 'cmd', seq: timeouts.length, duplicate: false };
    },
  } as unknown as JetStreamPublisher;
  return { nats, timeouts };
}

/** The promise's outcome so far, read without waiting for it. */
function watch(work: Promise<unknown>) {
  const seen: { outcome?: unknown } = {}; // 'resolved', or the error
  work.then(
    () => (seen.outcome = 'resolved'),
    (error: unknown) => (seen.outcome = error),
  );
  return seen;
}

describe('JetStreamCommandPublisher and the deadline (R1)', () => {
  const subjects = new Subjects('tg');

  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-12-01T00:00:00.000Z') }));
  afterEach(() => jest.useRealTimers());

  it('counts the time spent before the publish: a request that arrived 1.9 s ago waits for NATS 100 ms, not 2 s', async () => {
    const publisher = new JetStreamCommandPublisher(subjects, () => new Promise(() => undefined));
    const receivedAt = Date.now() - 1_900;

    const seen = watch(publisher.publish(command, { deadline: publishDeadline({ receivedAt }) }));

    await jest.advanceTimersByTimeAsync(99);
    expect(seen.outcome).toBeUndefined();
    await jest.advanceTimersByTimeAsync(1);
    expect(seen.outcome).toBeInstanceOf(CommandPublishTimeout);
  });

  it('gives the ack wait only what connecting left of the deadline', async () => {
    const { nats, timeouts } = ackingNats();
    const connecting = () => new Promise<JetStreamPublisher>((r) => setTimeout(() => r(nats), 300));
    const publisher = new JetStreamCommandPublisher(subjects, connecting);

    const seen = watch(publisher.publish(command, { deadline: Date.now() + 500 }));
    await jest.advanceTimersByTimeAsync(300);

    expect(seen.outcome).toBe('resolved');
    expect(timeouts).toEqual([200]);
  });

  it('publishes nothing, and fails at once, for a deadline already past', async () => {
    const connect = jest.fn(async () => ackingNats().nats);
    const publisher = new JetStreamCommandPublisher(subjects, connect);

    await expect(publisher.publish(command, { deadline: Date.now() - 1 })).rejects.toBeInstanceOf(
      CommandPublishTimeout,
    );
    expect(connect).not.toHaveBeenCalled();
  });

  it('publishes nothing when connecting took the whole deadline, rather than wait a millisecond', async () => {
    const { nats, timeouts } = ackingNats();
    const deadline = Date.now() + 500;
    // Connected, but only once the event loop came back past the deadline (a blocked loop).
    const slowLoop = async () => {
      jest.setSystemTime(deadline + 5);
      return nats;
    };
    const publisher = new JetStreamCommandPublisher(subjects, slowLoop);

    await expect(publisher.publish(command, { deadline })).rejects.toBeInstanceOf(
      CommandPublishTimeout,
    );
    expect(timeouts).toEqual([]);
  });

  it('bounds a publish with no deadline (no request waits for it) from the call', async () => {
    const { nats, timeouts } = ackingNats();
    const publisher = new JetStreamCommandPublisher(subjects, async () => nats);

    await publisher.publish(command);

    expect(timeouts).toEqual([COMMAND_PUBLISH_DEADLINE_MS]);
  });
});
