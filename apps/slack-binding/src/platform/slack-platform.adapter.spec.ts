import {
  standardOptions,
  type Conversation,
  type ToolInteractionRequest,
} from '@tollgate/protocol';
import { SlackApiFake } from '@tollgate/platform-standins';
import { SlackPlatformAdapter } from './slack-platform.adapter';

const CHANNEL = 'C0ADAPTER';

function request(conversation: Conversation): ToolInteractionRequest {
  return {
    type: 'ToolInteractionRequest',
    v: 1,
    id: 'slack-abc:5:0',
    sessionId: 'slack-abc',
    conversation,
    occurredAt: '2026-11-29T00:00:00.000Z',
    seq: 5,
    callId: 'call_1',
    batchId: 'batch_1',
    toolName: 'write_note',
    displayText: 'Write a note',
    requester: { id: 'U0ALICE', displayName: 'Alice' },
    principal: 'user',
    options: standardOptions(),
  };
}

describe('SlackPlatformAdapter against the Slack API fake', () => {
  const fake = new SlackApiFake();
  let adapter: SlackPlatformAdapter;
  let threadCount = 0;

  /** A thread a person started, with `chatter` of their messages in it before the bot's. */
  function thread(chatter = 0): Conversation {
    threadCount += 1;
    const root = fake.addUserMessage({ channel: CHANNEL, user: 'U0ALICE', text: 'hi bot' });
    for (let i = 0; i < chatter; i += 1) {
      fake.addUserMessage({ channel: CHANNEL, user: 'U0BOB', text: `chat ${i}`, thread_ts: root });
    }
    return { platform: 'slack', workspaceId: 'T1', channelId: CHANNEL, threadId: root };
  }

  beforeAll(async () => {
    await fake.start();
    adapter = new SlackPlatformAdapter({
      token: fake.botToken,
      apiUrl: fake.apiUrl,
      timeoutMs: 300,
    });
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.stop());

  it('B12 finds a prompt posted in a thread by the prompt ref in its metadata, past the first page', async () => {
    const conversation = thread(250);
    const target = { conversation, promptRef: `ref${threadCount}` };
    const other = { conversation, promptRef: `other${threadCount}` };
    await adapter.postPrompt(other, { kind: 'pending', request: request(conversation) });
    const posted = await adapter.postPrompt(target, {
      kind: 'pending',
      request: request(conversation),
    });

    await expect(adapter.findPostedPrompt(target, new Date())).resolves.toEqual(posted);
    const reads = fake.callsTo('conversations.replies');
    expect(reads.length).toBeGreaterThan(1);
    expect(reads[0].args).toMatchObject({
      ts: conversation.threadId,
      include_all_metadata: 'true',
    });
  });

  it('B12 finds a prompt posted at the top of a channel through its history', async () => {
    const conversation: Conversation = {
      platform: 'slack',
      workspaceId: 'T1',
      channelId: 'C0TOPLEVEL',
      threadId: '',
    };
    const target = { conversation, promptRef: 'reftop' };
    const posted = await adapter.postPrompt(target, {
      kind: 'pending',
      request: request(conversation),
    });

    await expect(adapter.findPostedPrompt(target, new Date())).resolves.toEqual(posted);
    expect(fake.callsTo('conversations.history')).toHaveLength(1);
  });

  it('R3 finds a stray post of a prompt beside the one passed over, and nothing when it is the only one', async () => {
    const conversation: Conversation = {
      platform: 'slack',
      workspaceId: 'T1',
      channelId: 'C0STRAY',
      threadId: '',
    };
    const target = { conversation, promptRef: 'refstray' };
    const view = { kind: 'pending', request: request(conversation) } as const;
    const stray = await adapter.postPrompt(target, view);
    await expect(adapter.findPostedPrompt(target, new Date(), stray)).resolves.toBeUndefined();
    const tracked = await adapter.postPrompt(target, view);

    await expect(adapter.findPostedPrompt(target, new Date(), tracked)).resolves.toEqual(stray);
    await expect(adapter.findPostedPrompt(target, new Date(), stray)).resolves.toEqual(tracked);
  });

  it('finds nothing when the prompt was never posted, or its thread is gone', async () => {
    const conversation = thread(3);
    await expect(
      adapter.findPostedPrompt({ conversation, promptRef: 'nothere' }, new Date()),
    ).resolves.toBeUndefined();
    await expect(
      adapter.findPostedPrompt(
        {
          conversation: { ...conversation, threadId: '1600000000.000001' },
          promptRef: 'nothere',
        },
        new Date(),
      ),
    ).resolves.toBeUndefined();
  });

  it('counts only its own messages: another app posting the same metadata is not the prompt', async () => {
    const conversation = thread();
    const target = { conversation, promptRef: 'refown' };
    const adapter = new SlackPlatformAdapter({
      token: fake.botToken,
      apiUrl: fake.apiUrl,
      timeoutMs: 300,
    });
    fake.addUserMessage({
      channel: CHANNEL,
      thread_ts: conversation.threadId,
      user: 'U0STAGING',
      bot_id: 'B0STAGING',
      text: 'a staging install of the same bot',
      metadata: { event_type: 'tollgate_prompt', event_payload: { promptRef: 'refown' } },
    });

    await expect(adapter.findPostedPrompt(target, new Date())).resolves.toBeUndefined();
    const posted = await adapter.postPrompt(target, {
      kind: 'pending',
      request: request(conversation),
    });
    await expect(adapter.findPostedPrompt(target, new Date())).resolves.toEqual(posted);
    // Who the bot is, is asked once.
    expect(fake.callsTo('auth.test')).toHaveLength(1);
  });

  it('B12 finds a text posted for an output id, and only that one', async () => {
    const conversation = thread(2);
    await adapter.postText(conversation, 'first', 'assistant', 'slack-abc:7:0');
    const posted = await adapter.postText(conversation, 'second', 'assistant', 'slack-abc:8:0');

    await expect(adapter.findPostedText(conversation, 'slack-abc:8:0')).resolves.toEqual(posted);
    await expect(adapter.findPostedText(conversation, 'slack-abc:9:0')).resolves.toBeUndefined();
  });

  it('B12 a post that times out after Slack took it is a transient failure', async () => {
    const conversation = thread();
    fake.failNext('chat.postMessage', { acceptThenTimeout: true });
    const error: unknown = await adapter
      .postText(conversation, 'held', 'assistant', 'slack-abc:10:0')
      .catch((e: unknown) => e);

    // No answer came: Slack may still make it, so the prompt is held (R3).
    expect(adapter.classifyFailure(error)).toMatchObject({ kind: 'transient', unanswered: true });
    await expect(adapter.findPostedText(conversation, 'slack-abc:10:0')).resolves.toBeDefined();
  });
});
