import { type Command, type Conversation, deriveSessionId, Subjects } from '@tollgate/protocol';
import type { PromptAddress } from '../journal/prompt-journal.port';
import { promptRefOf } from '../prompt/prompt-ref';
import { ForwardClick } from './forward-click.usecase';
import { CommandPublishTimeout, JetStreamCommandPublisher } from './jetstream-command.publisher';

const slack: Conversation = {
  platform: 'slack',
  workspaceId: 'T1',
  channelId: 'C1',
  threadId: '1.2',
};
const mattermost: Conversation = {
  platform: 'mattermost',
  workspaceId: 'team',
  channelId: 'chan',
  threadId: 'root',
};

function addressOf(conversation: Conversation, sessionId = deriveSessionId(conversation)) {
  const key = { sessionId, callId: 'call_2_1' };
  return { key, conversation, promptRef: promptRefOf(key) } satisfies PromptAddress;
}

/** ForwardClick over a journal that holds exactly `held`; what it publishes is kept. */
function forwardClickWith(held: PromptAddress) {
  const published: Command[] = [];
  const forwardClick = new ForwardClick({
    platform: 'slack',
    prompts: { findByRef: async (ref) => (ref === held.promptRef ? held : undefined) },
    commands: {
      publish: async (command) => {
        published.push(command);
      },
    },
    now: () => new Date('2026-12-01T00:00:00.000Z'),
  });
  const click = {
    promptRef: held.promptRef,
    optionKey: 'approve_once',
    clicker: { id: 'U1' },
    commandId: '1.3:U1',
  };
  return { forwardClick, click, published };
}

describe('ForwardClick and the binding’s own platform', () => {
  it('forwards a click on a prompt of its own platform', async () => {
    const { forwardClick, click, published } = forwardClickWith(addressOf(slack));
    await expect(forwardClick.execute(click, { receivedAt: Date.now() })).resolves.toMatchObject({
      kind: 'forwarded',
    });
    expect(published).toHaveLength(1);
  });

  it.each([
    ['a conversation of another platform', addressOf(mattermost)],
    ['a session id of another platform', addressOf(slack, deriveSessionId(mattermost))],
  ])('X7 refuses, before publishing, a prompt the journal holds with %s', async (_label, held) => {
    const { forwardClick, click, published } = forwardClickWith(held);
    await expect(forwardClick.execute(click, { receivedAt: Date.now() })).resolves.toEqual({
      kind: 'refused',
      reason: 'session_mismatch',
      detail: expect.stringContaining('another platform'),
    });
    expect(published).toEqual([]);
  });
});

describe('ForwardClick and the platform’s 3 s (R1)', () => {
  afterEach(() => jest.useRealTimers());

  it('publishes by two seconds after the click arrived, not after the journal lookup', async () => {
    const deadlines: (number | undefined)[] = [];
    const held = addressOf(slack);
    const forwardClick = new ForwardClick({
      platform: 'slack',
      prompts: { findByRef: async () => held },
      commands: { publish: async (_command, options) => void deadlines.push(options?.deadline) },
      now: () => new Date(),
    });
    const { click } = forwardClickWith(held);

    await forwardClick.execute(click, { receivedAt: 1_000_000 });

    expect(deadlines).toEqual([1_002_000]);
  });

  it('fails a click that arrived 1.9 s ago within 100 ms when NATS does not answer', async () => {
    jest.useFakeTimers({ now: new Date('2026-12-01T00:00:00.000Z') });
    const held = addressOf(slack);
    const forwardClick = new ForwardClick({
      platform: 'slack',
      prompts: { findByRef: async () => held },
      commands: new JetStreamCommandPublisher(new Subjects('tg'), () => new Promise(() => {})),
      now: () => new Date(),
    });
    const { click } = forwardClickWith(held);

    const outcome: { error?: unknown } = {};
    const forwarding = forwardClick
      .execute(click, { receivedAt: Date.now() - 1_900 })
      .catch((error: unknown) => (outcome.error = error));
    await jest.advanceTimersByTimeAsync(100);
    await forwarding;

    expect(outcome.error).toBeInstanceOf(CommandPublishTimeout);
  });
});
