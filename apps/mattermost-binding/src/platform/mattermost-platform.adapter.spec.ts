import {
  standardOptions,
  type Conversation,
  type ToolInteractionRequest,
} from '@tollgate/protocol';
import { MattermostApiFake } from '@tollgate/platform-standins';
import { verifyActionContext } from '../inbound/action-signature';
import { MattermostPlatformAdapter } from './mattermost-platform.adapter';

const CHANNEL = 'adapterchannel000000000000';
const SECRET = 'adapter-spec-action-secret';
const NONCE = '0123456789abcdef0123456789abcdef';

function request(conversation: Conversation): ToolInteractionRequest {
  return {
    type: 'ToolInteractionRequest',
    v: 1,
    id: 'mattermost-abc:5:0',
    sessionId: 'mattermost-abc',
    conversation,
    occurredAt: '2026-11-29T00:00:00.000Z',
    seq: 5,
    callId: 'call_1',
    batchId: 'batch_1',
    toolName: 'write_note',
    displayText: 'Write a note',
    requester: { id: 'u1', displayName: 'alice' },
    principal: 'user',
    options: standardOptions(),
  };
}

describe('MattermostPlatformAdapter against the Mattermost API fake', () => {
  const fake = new MattermostApiFake();
  let adapter: MattermostPlatformAdapter;

  function thread(): Conversation {
    const root = fake.addUserPost({ channel_id: CHANNEL, user_id: 'u1', message: 'hi bot' });
    return { platform: 'mattermost', workspaceId: 'team', channelId: CHANNEL, threadId: root };
  }

  beforeAll(async () => {
    await fake.start();
    adapter = new MattermostPlatformAdapter({
      url: fake.apiUrl,
      token: fake.token,
      render: { actionUrl: 'https://binding.test/mattermost/actions', actionSecret: SECRET },
      timeoutMs: 300,
    });
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.stop());

  it('posts a prompt in the thread and rebuilds its buttons whole on every edit', async () => {
    const conversation = thread();
    const target = { conversation, promptRef: 'ref1', postNonce: NONCE };
    const ref = await adapter.postPrompt(target, {
      kind: 'pending',
      request: request(conversation),
    });
    expect(fake.post(ref.messageId)).toMatchObject({ root_id: conversation.threadId });
    await adapter.editPrompt(target, ref, { kind: 'refreshed', request: request(conversation) });
    const actions = fake.post(ref.messageId)!.props.attachments![0].actions!;
    expect(actions).toHaveLength(4);
    for (const action of actions) {
      expect(verifyActionContext(SECRET, action.integration?.context)).toMatchObject({
        ok: true,
        context: { nonce: NONCE },
      });
    }
    await adapter.editPrompt(target, ref, { kind: 'expired', request: request(conversation) });
    const cleared = fake.post(ref.messageId)!;
    expect(cleared.edits).toBe(2);
    expect(cleared.props.attachments![0]).not.toHaveProperty('actions');
  });

  it('finds its own prompt and text by their props, and nobody else’s', async () => {
    const conversation = thread();
    const target = { conversation, promptRef: 'refown', postNonce: NONCE };
    fake.addUserPost({
      channel_id: CHANNEL,
      root_id: conversation.threadId,
      user_id: 'someotherbot',
      message: 'staging',
      props: { tollgate_prompt_ref: 'refown' },
    });
    await expect(adapter.findPostedPrompt(target, new Date())).resolves.toBeUndefined();
    const posted = await adapter.postPrompt(target, {
      kind: 'pending',
      request: request(conversation),
    });
    await expect(adapter.findPostedPrompt(target, new Date())).resolves.toEqual({
      ...posted,
      postNonce: NONCE,
    });
    const text = await adapter.postText(conversation, 'reply', 'assistant', 'mattermost-abc:7:0');
    await expect(adapter.findPostedText(conversation, 'mattermost-abc:7:0')).resolves.toEqual(text);
    await expect(
      adapter.findPostedText(conversation, 'mattermost-abc:8:0'),
    ).resolves.toBeUndefined();
    await expect(
      adapter.findPostedPrompt(
        {
          conversation: { ...conversation, threadId: 'gonethread0000000000000000' },
          promptRef: 'x',
        },
        new Date(),
      ),
    ).resolves.toBeUndefined();
    expect(fake.callsTo('getMe')).toHaveLength(1);
  });

  it('R3 finds the attempt with the intent’s nonce among several, and says which nonce a post carries', async () => {
    const conversation = thread();
    const view = { kind: 'pending', request: request(conversation) } as const;
    const earlier = 'b'.repeat(32);
    const first = await adapter.postPrompt(
      { conversation, promptRef: 'refmany', postNonce: earlier },
      view,
    );
    // Past the server's 30 s memory of the first, or as a repost: a post of its own.
    const second = await adapter.postPrompt(
      { conversation, promptRef: 'refmany', postNonce: NONCE, idempotencyKey: 'refmanyr2' },
      view,
    );

    await expect(
      adapter.findPostedPrompt(
        { conversation, promptRef: 'refmany', postNonce: NONCE },
        new Date(),
      ),
    ).resolves.toEqual({ ...second, postNonce: NONCE });
    // An intent whose own post never arrived adopts the first attempt's, with that one's nonce.
    await expect(
      adapter.findPostedPrompt(
        { conversation, promptRef: 'refmany', postNonce: 'c'.repeat(32) },
        new Date(),
      ),
    ).resolves.toEqual({ ...first, postNonce: earlier });
    // R3: passing over the post the journal tracks finds the other, with its own nonce.
    await expect(
      adapter.findPostedPrompt(
        { conversation, promptRef: 'refmany', postNonce: NONCE },
        new Date(),
        second,
      ),
    ).resolves.toEqual({ ...first, postNonce: earlier });
  });

  it('R3 a retried post of a prompt is answered with the post the server already made, and its nonce', async () => {
    const conversation = thread();
    const view = { kind: 'pending', request: request(conversation) } as const;
    fake.failNext('createPost', { acceptThenTimeout: true });
    const first = 'd'.repeat(32);
    await expect(
      adapter.postPrompt({ conversation, promptRef: 'refonce', postNonce: first }, view),
    ).rejects.toBeDefined();

    // The retry comes with a new intent's nonce; the server keeps the post it made.
    const retried = await adapter.postPrompt(
      { conversation, promptRef: 'refonce', postNonce: NONCE },
      view,
    );

    const made = fake.posts.filter((p) => p.props.tollgate_prompt_ref === 'refonce');
    expect(made).toHaveLength(1);
    expect(retried).toEqual({ channelId: CHANNEL, messageId: made[0].id, postNonce: first });
  });

  it('a post that times out after the server took it is transient, and is found', async () => {
    const conversation = thread();
    fake.failNext('createPost', { acceptThenTimeout: true });
    const error: unknown = await adapter
      .postText(conversation, 'held', 'assistant', 'mattermost-abc:10:0')
      .catch((e: unknown) => e);
    // No answer came: the server may still make it, so the prompt is held (R3).
    expect(adapter.classifyFailure(error)).toMatchObject({ kind: 'transient', unanswered: true });
    await expect(
      adapter.findPostedText(conversation, 'mattermost-abc:10:0'),
    ).resolves.toBeDefined();
  });

  it('classifies 5xx and 429 (with Retry-After) as transient, a 4xx refusal as permanent', async () => {
    const conversation = thread();
    const post = () =>
      adapter.postText(conversation, 'x', 'assistant', 'o').catch((e: unknown) => e);
    fake.failNext('createPost', { status: 502 });
    const answered = adapter.classifyFailure(await post());
    expect(answered).toMatchObject({ kind: 'transient' });
    expect(answered).not.toHaveProperty('unanswered');
    fake.failNext('createPost', { rateLimit: 3 });
    expect(adapter.classifyFailure(await post())).toEqual({
      kind: 'transient',
      reason: 'mattermost_rate_limited',
      retryAfterMs: 3000,
    });
    fake.failNext('createPost', { refuse: 403 });
    expect(adapter.classifyFailure(await post())).toMatchObject({ kind: 'permanent' });
    expect(adapter.classifyFailure(new TypeError('fetch failed'))).toMatchObject({
      kind: 'transient',
      unanswered: true,
    });
  });

  it('X3 asks the server whether a user is a member of a channel; a failure is no answer', async () => {
    fake.addChannelMembers(CHANNEL, ['member1']);
    await expect(adapter.isChannelMember(CHANNEL, 'member1')).resolves.toBe(true);
    await expect(adapter.isChannelMember(CHANNEL, 'stranger')).resolves.toBe(false);
    await expect(adapter.isChannelMember('otherchannel00000000000000', 'member1')).resolves.toBe(
      false,
    );
    fake.failNext('getChannelMember', { refuse: 403 });
    await expect(adapter.isChannelMember(CHANNEL, 'member1')).resolves.toBe(false);
    fake.failNext('getChannelMember', { status: 503 });
    await expect(adapter.isChannelMember(CHANNEL, 'member1')).rejects.toBeDefined();
  });

  it('sends a notice as an ephemeral post to that person alone', async () => {
    const conversation = thread();
    await adapter.sendNotice(conversation, { id: 'u2' }, 'only for you');
    expect(fake.ephemerals).toEqual([
      expect.objectContaining({
        user_id: 'u2',
        channel_id: CHANNEL,
        root_id: conversation.threadId,
        message: 'only for you',
      }),
    ]);
  });
});
