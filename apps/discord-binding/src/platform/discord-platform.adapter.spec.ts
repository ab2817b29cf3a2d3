import {
  standardOptions,
  type Conversation,
  type ToolInteractionRequest,
} from '@tollgate/protocol';
import { DiscordApiFake } from '@tollgate/platform-standins';
import { interactionToken } from '@tollgate/platform-standins';
import {
  DiscordPlatformAdapter,
  NOTICE_TOKEN_MAX_AGE_MS,
  promptNonce,
  textNonce,
} from './discord-platform.adapter';
import type { InteractionTokens } from './interaction-token.repository';

let channelCounter = 0;
function conversation(): Conversation {
  channelCounter += 1;
  return {
    platform: 'discord',
    workspaceId: '700',
    channelId: String(1_600_000_000_000_000_000n + BigInt(channelCounter)),
    threadId: '',
  };
}

function request(where: Conversation): ToolInteractionRequest {
  return {
    type: 'ToolInteractionRequest',
    v: 1,
    id: 'discord-abc:5:0',
    sessionId: 'discord-abc',
    conversation: where,
    occurredAt: '2026-11-29T00:00:00.000Z',
    seq: 5,
    callId: 'call_1',
    batchId: 'batch_1',
    toolName: 'write_note',
    displayText: 'Write a note',
    requester: { id: '42', displayName: 'Alice' },
    principal: 'user',
    options: standardOptions(),
  };
}

/** In memory, with the age check the repository makes in SQL. */
class MemoryTokens implements InteractionTokens {
  readonly rows = new Map<string, { token: string; at: Date }>();
  remember(userId: string, channelId: string, token: string, receivedAt: Date): Promise<void> {
    this.rows.set(`${userId}/${channelId}`, { token, at: receivedAt });
    return Promise.resolve();
  }
  latest(userId: string, channelId: string, maxAgeMs: number): Promise<string | undefined> {
    const row = this.rows.get(`${userId}/${channelId}`);
    return Promise.resolve(row && Date.now() - row.at.getTime() < maxAgeMs ? row.token : undefined);
  }
}

describe('DiscordPlatformAdapter against the Discord API fake', () => {
  const fake = new DiscordApiFake();
  const tokens = new MemoryTokens();
  let adapter: DiscordPlatformAdapter;

  beforeAll(async () => {
    await fake.start();
    adapter = new DiscordPlatformAdapter({
      token: fake.botToken,
      apiUrl: fake.apiUrl,
      applicationId: fake.applicationId,
      timeoutMs: 300,
      tokens,
    });
  });
  afterEach(() => {
    fake.reset();
    tokens.rows.clear();
  });
  afterAll(() => fake.stop());

  it('posts a prompt with its nonce enforced, and a retry of it returns the same message', async () => {
    const where = conversation();
    const target = { conversation: where, promptRef: 'ref1' };
    const first = await adapter.postPrompt(target, { kind: 'pending', request: request(where) });
    const again = await adapter.postPrompt(target, { kind: 'pending', request: request(where) });
    expect(again).toEqual(first);
    expect(fake.callsTo('createMessage')[0].body).toMatchObject({
      nonce: promptNonce('ref1'),
      enforce_nonce: true,
    });
    expect(fake.messages).toHaveLength(1);
  });

  it('B12 finds a prompt that timed out after Discord took it, by its buttons', async () => {
    const where = conversation();
    const target = { conversation: where, promptRef: 'ref2' };
    await adapter.postText(where, 'chatter', 'assistant', 'discord-abc:1:0');
    fake.failNext('createMessage', { acceptThenTimeout: true });
    const error: unknown = await adapter
      .postPrompt(target, { kind: 'pending', request: request(where) })
      .catch((e: unknown) => e);
    expect(adapter.classifyFailure(error)).toMatchObject({ kind: 'transient' });
    const found = await adapter.findPostedPrompt(target, new Date());
    expect(found).toEqual({ channelId: where.channelId, messageId: fake.messages[1].id });
    await expect(
      adapter.findPostedPrompt({ conversation: where, promptRef: 'other' }, new Date()),
    ).resolves.toBeUndefined();
    // Once cleared, it has no buttons to be found by: nothing to adopt.
    await adapter.editPrompt(target, found!, { kind: 'expired', request: request(where) });
    expect(fake.messages[1].components).toEqual([]);
  });

  it('R3 finds a stray post of a prompt beside the one passed over, and nothing when it is the only one', async () => {
    const where = conversation();
    const target = { conversation: where, promptRef: 'refstray' };
    const view = { kind: 'pending', request: request(where) } as const;
    const stray = await adapter.postPrompt(target, view);
    await expect(adapter.findPostedPrompt(target, new Date(), stray)).resolves.toBeUndefined();
    // Discord answers a post with the prompt's nonce with the same message for a few minutes:
    // a second post of the prompt is a new message only after that window.
    const realNow = Date.now;
    const later = realNow() + 6 * 60_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => later);
    const tracked = await adapter.postPrompt(target, view).finally(() => clock.mockRestore());
    expect(tracked).not.toEqual(stray);

    await expect(adapter.findPostedPrompt(target, new Date(), tracked)).resolves.toEqual(stray);
    await expect(adapter.findPostedPrompt(target, new Date(), stray)).resolves.toEqual(tracked);
  });

  it('B12 a text that timed out after Discord took it is not posted twice: its nonce', async () => {
    const where = conversation();
    await adapter.postText(where, 'first', 'assistant', 'discord-abc:7:0');
    fake.failNext('createMessage', { acceptThenTimeout: true });
    const error: unknown = await adapter
      .postText(where, 'second', 'assistant', 'discord-abc:8:0')
      .catch((e: unknown) => e);
    expect(adapter.classifyFailure(error)).toMatchObject({ kind: 'transient' });
    const retried = await adapter.postText(where, 'second', 'assistant', 'discord-abc:8:0');
    expect(fake.messages.map((m) => m.content)).toEqual(['first', 'second']);
    expect(retried.messageId).toBe(fake.messages[1].id);
    expect(fake.callsTo('createMessage')[1].body).toMatchObject({
      nonce: textNonce('discord-abc:8:0'),
      enforce_nonce: true,
    });
    expect(textNonce('discord-abc:8:0').length).toBeLessThanOrEqual(25);
    expect(textNonce('discord-abc:9:0')).not.toBe(textNonce('discord-abc:8:0'));
  });

  it('S22 a text addressed to a person pings that person only; the text stays inert', async () => {
    const where = conversation();
    const ada = { id: '412345678901234567', displayName: 'ada' };
    await adapter.postText(where, 'Reminder @everyone <@1>', 'notice', 'discord-abc:10:0', ada);
    await adapter.postText(where, 'Reminder', 'notice', 'discord-abc:11:0');
    const [addressed, plain] = fake.callsTo('createMessage').map((c) => c.body) as {
      content: string;
      allowed_mentions: unknown;
    }[];
    expect(addressed?.content.startsWith('<@412345678901234567> ')).toBe(true);
    expect(addressed?.content).not.toContain('@everyone');
    expect(addressed?.content).not.toContain('<@1>');
    expect(addressed?.allowed_mentions).toEqual({ parse: [], users: ['412345678901234567'] });
    expect(plain).toMatchObject({
      content: 'Reminder',
      allowed_mentions: { parse: [], users: [] },
    });
  });

  it('a notice is an ephemeral follow-up on the person’s recent interaction there', async () => {
    const where = conversation();
    const token = interactionToken();
    fake.issueInteraction({ token, userId: '43', channelId: where.channelId });
    await adapter.rememberInteraction('43', where.channelId, token);
    await adapter.sendNotice(where, { id: '43' }, 'Only the person who asked can answer.');
    expect(fake.notices).toEqual([
      expect.objectContaining({ userId: '43', via: 'ephemeral_followup' }),
    ]);
    expect(fake.callsTo('createFollowup')[0].body).toMatchObject({ flags: 64 });
  });

  it('without a recent interaction, or when Discord refuses its token, a notice is a DM', async () => {
    const where = conversation();
    await adapter.sendNotice(where, { id: '44' }, 'first');
    tokens.rows.set(`45/${where.channelId}`, {
      token: 'old',
      at: new Date(Date.now() - NOTICE_TOKEN_MAX_AGE_MS - 1),
    });
    await adapter.sendNotice(where, { id: '45' }, 'second');
    await adapter.rememberInteraction('46', where.channelId, 'never-issued');
    await adapter.sendNotice(where, { id: '46' }, 'third');
    expect(fake.notices.map((n) => [n.userId, n.content, n.via])).toEqual([
      ['44', 'first', 'dm'],
      ['45', 'second', 'dm'],
      ['46', 'third', 'dm'],
    ]);
    expect(fake.messages).toHaveLength(0);
  });

  it('edits the deferred response of an /ask', async () => {
    const token = interactionToken();
    fake.issueInteraction({ token, userId: '42', channelId: '1' });
    await adapter.editOriginalResponse(token, 'Sent to the agent.');
    expect(fake.original(token)).toEqual({ content: 'Sent to the agent.', edits: 1 });
  });

  it.each([
    ['a 5xx as transient', { status: 503 } as const, { kind: 'transient' }],
    [
      'a 429 as transient with its Retry-After',
      { rateLimit: 3 } as const,
      { kind: 'transient', retryAfterMs: expect.any(Number) },
    ],
    [
      'a 4xx refusal as permanent',
      { refuse: { status: 404, code: 10003, message: 'Unknown Channel' } } as const,
      { kind: 'permanent', reason: expect.stringContaining('10003') },
    ],
    [
      'a timeout as transient and unanswered',
      { hangMs: Infinity } as const,
      { kind: 'transient', unanswered: true },
    ],
  ])('classifies %s', async (_name, fault, expected) => {
    const where = conversation();
    fake.failNext('createMessage', fault);
    const error: unknown = await adapter
      .postText(where, 'x', 'assistant', 'discord-abc:2:0')
      .catch((e: unknown) => e);
    const failure = adapter.classifyFailure(error);
    expect(failure).toMatchObject(expected);
    if ('rateLimit' in fault && failure.kind === 'transient') {
      expect(failure.retryAfterMs).toBeGreaterThanOrEqual(3_000);
    }
  });
});
