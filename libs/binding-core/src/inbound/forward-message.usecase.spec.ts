import type { JetStreamPublisher } from '@tollgate/messaging';
import { type Conversation, Subjects } from '@tollgate/protocol';
import { ForwardMessage } from './forward-message.usecase';
import { CommandPublishTimeout, JetStreamCommandPublisher } from './jetstream-command.publisher';

const conversation: Conversation = {
  platform: 'slack',
  workspaceId: 'T1',
  channelId: 'C1',
  threadId: '1.2',
};
const message = { conversation, sender: { id: 'U1' }, text: 'hello', commandId: 'Ev-r1-1' };

/**
 * ForwardMessage over JetStream that acks at once (its ack waits kept), whose remembering of
 * the session takes `rememberMs` of the (fake) clock, as a loaded PostgreSQL may.
 */
function forwardMessageWith(rememberMs: number) {
  const ackWaits: (number | undefined)[] = [];
  const nats = {
    publish: async (_subject: string, _data: unknown, options: { timeoutMs?: number }) => {
      ackWaits.push(options.timeoutMs);
      return { stream: 'cmd', seq: ackWaits.length, duplicate: false };
    },
  } as unknown as JetStreamPublisher;
  const forwardMessage = new ForwardMessage({
    sessions: {
      remember: async () => void jest.setSystemTime(Date.now() + rememberMs),
    } as never,
    prompts: { pendingIn: async () => [], pendingApprovalsFor: async () => [] },
    adapter: { sendNotice: async () => undefined },
    commands: new JetStreamCommandPublisher(new Subjects('tg'), async () => nats),
    now: () => new Date(),
  });
  return { forwardMessage, ackWaits };
}

describe('ForwardMessage and the platform’s 3 s (R1)', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-12-01T00:00:00.000Z') }));
  afterEach(() => jest.useRealTimers());

  it('counts the session’s remembering against the publish: 1.5 s of it leaves 0.5 s to NATS', async () => {
    const { forwardMessage, ackWaits } = forwardMessageWith(1_500);

    await forwardMessage.execute(message, { receivedAt: Date.now() });

    expect(ackWaits).toEqual([500]);
  });

  it('publishes nothing once remembering took the whole 2 s, and says so', async () => {
    const { forwardMessage, ackWaits } = forwardMessageWith(2_100);

    await expect(
      forwardMessage.execute(message, { receivedAt: Date.now() }),
    ).rejects.toBeInstanceOf(CommandPublishTimeout);
    expect(ackWaits).toEqual([]);
  });
});
