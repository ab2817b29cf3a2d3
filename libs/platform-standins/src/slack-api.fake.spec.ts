import {
  type Logger,
  LogLevel,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
  WebClient,
  type WebClientOptions,
} from '@slack/web-api';
import { waitFor } from '../../../test/support/wait-for';
import { SlackApiFake } from './slack-api.fake';
import { actionsOf, blocksOf, hasActions, textContent, type SlackBlock } from './slack-blocks';

const CHANNEL = 'C0APPROVALS';
const TS_FORMAT = /^\d{10}\.\d{6}$/;

const approvalBlocks: SlackBlock[] = [
  { type: 'section', text: { type: 'mrkdwn', text: '*Approve?* `rm -rf build/`' } },
  {
    type: 'actions',
    block_id: 'approval',
    elements: [
      {
        type: 'button',
        action_id: 'approve',
        value: 'call-1',
        style: 'primary',
        text: { type: 'plain_text', text: 'Approve' },
      },
      {
        type: 'button',
        action_id: 'deny',
        value: 'call-1',
        style: 'danger',
        text: { type: 'plain_text', text: 'Deny' },
      },
    ],
  },
];
const decidedBlocks: SlackBlock[] = [
  approvalBlocks[0],
  { type: 'context', elements: [{ type: 'mrkdwn', text: 'Approved by <@U0ALICE>' }] },
];
const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => LogLevel.ERROR,
  setName: () => undefined,
};
const metadata = { event_type: 'tollgate_prompt', event_payload: { call_id: 'call-1' } };

describe('SlackApiFake driven by the official @slack/web-api WebClient', () => {
  const fake = new SlackApiFake();
  let slack: WebClient;

  const client = (token = fake.botToken, options: WebClientOptions = {}): WebClient =>
    new WebClient(token, {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      logLevel: LogLevel.ERROR,
      ...options,
    });

  const postApproval = async (extra: Record<string, unknown> = {}): Promise<string> => {
    const posted = await slack.chat.postMessage({
      channel: CHANNEL,
      text: 'Approve rm -rf build/?',
      blocks: approvalBlocks,
      ...extra,
    });
    return posted.ts as string;
  };

  beforeAll(async () => {
    await fake.start();
    slack = client();
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.stop());

  it('answers auth.test with the bot identity', async () => {
    const auth = await slack.auth.test();

    expect(auth).toMatchObject({
      ok: true,
      user_id: fake.identity.botUserId,
      bot_id: fake.identity.botId,
      team_id: fake.identity.teamId,
    });
  });

  it('decodes the form-encoded post so blocks and metadata arrive as objects', async () => {
    const posted = await slack.chat.postMessage({
      channel: CHANNEL,
      text: 'Approve rm -rf build/?',
      blocks: approvalBlocks,
      metadata,
    });

    const [call] = fake.callsTo('chat.postMessage');
    expect(call.encoding).toBe('form');
    expect(call.args.blocks).toEqual(approvalBlocks);
    expect(call.args.metadata).toEqual(metadata);
    expect(posted).toMatchObject({
      ok: true,
      channel: CHANNEL,
      message: { blocks: approvalBlocks },
    });
    expect(posted.ts).toMatch(TS_FORMAT);
    const [message] = fake.messages;
    expect(message).toMatchObject({ channel: CHANNEL, ts: posted.ts, metadata, edits: 0 });
    expect(actionsOf(message)).toEqual([
      {
        action_id: 'approve',
        value: 'call-1',
        text: 'Approve',
        style: 'primary',
        block_id: 'approval',
      },
      { action_id: 'deny', value: 'call-1', text: 'Deny', style: 'danger', block_id: 'approval' },
    ]);
  });

  it('hands out unique, increasing ts values', async () => {
    const first = await postApproval();
    const second = await postApproval({ thread_ts: first });
    const third = await postApproval({ thread_ts: first });

    expect([first, second, third].every((ts) => TS_FORMAT.test(ts))).toBe(true);
    expect(Number(first)).toBeLessThan(Number(second));
    expect(Number(second)).toBeLessThan(Number(third));
    expect(fake.posts({ thread_ts: first }).map((p) => p.ts)).toEqual([second, third]);
  });

  it('replaces the blocks on chat.update, so the actions block can be removed', async () => {
    const ts = await postApproval();

    const updated = await slack.chat.update({
      channel: CHANNEL,
      ts,
      text: 'Approved by Alice',
      blocks: decidedBlocks,
    });

    expect(updated).toMatchObject({ ok: true, channel: CHANNEL, ts });
    const message = fake.message(CHANNEL, ts);
    expect(hasActions(message)).toBe(false);
    expect(blocksOf(message)).toEqual(decidedBlocks);
    expect(textContent(message)).toContain('Approved by <@U0ALICE>');
    expect(message?.edits).toBe(1);
    expect(message?.history.map((v) => hasActions(v))).toEqual([true, false]);
    expect(fake.edits({ ts })).toHaveLength(1);
  });

  it('drops the blocks when chat.update sends text without blocks, as Slack documents', async () => {
    const textOnly = await postApproval();
    const emptied = await postApproval();
    const blocksOnly = await postApproval();

    await slack.chat.update({ channel: CHANNEL, ts: textOnly, text: 'Expired' });
    await slack.chat.update({ channel: CHANNEL, ts: emptied, text: 'Expired', blocks: [] });
    await slack.chat.update({ channel: CHANNEL, ts: blocksOnly, blocks: decidedBlocks });

    expect(fake.message(CHANNEL, textOnly)).toMatchObject({ text: 'Expired', blocks: undefined });
    expect(fake.message(CHANNEL, emptied)).toMatchObject({ text: 'Expired', blocks: undefined });
    expect(fake.message(CHANNEL, blocksOnly)).toMatchObject({
      text: 'Approve rm -rf build/?',
      blocks: decidedBlocks,
    });
  });

  it('refuses to update a message it never posted', async () => {
    const update = slack.chat.update({ channel: CHANNEL, ts: '1600000000.000100', text: 'x' });

    await expect(update).rejects.toBeInstanceOf(WebAPIPlatformError);
    await expect(update).rejects.toMatchObject({ data: { ok: false, error: 'message_not_found' } });
  });

  it('keeps ephemerals apart from channel messages, and they cannot be updated', async () => {
    const sent = await slack.chat.postEphemeral({
      channel: CHANNEL,
      user: 'U0ALICE',
      text: 'Only you can see this',
    });

    expect(sent.ok).toBe(true);
    expect(sent.message_ts).toMatch(TS_FORMAT);
    expect(fake.ephemerals).toMatchObject([
      {
        channel: CHANNEL,
        user: 'U0ALICE',
        message_ts: sent.message_ts,
        text: 'Only you can see this',
      },
    ]);
    expect(fake.messages).toEqual([]);
    await expect(
      slack.chat.update({ channel: CHANNEL, ts: sent.message_ts as string, text: 'x' }),
    ).rejects.toMatchObject({ data: { error: 'message_not_found' } });
  });

  it('returns the thread with metadata from conversations.replies only when asked', async () => {
    const root = await postApproval({ metadata });
    const reply = await postApproval({ thread_ts: root, text: 'Still waiting', metadata });
    await postApproval();

    const withMetadata = await slack.conversations.replies({
      channel: CHANNEL,
      ts: reply,
      include_all_metadata: true,
    });
    const without = await slack.conversations.replies({ channel: CHANNEL, ts: root });

    expect(withMetadata.messages?.map((m) => m.ts)).toEqual([root, reply]);
    expect(withMetadata.messages?.map((m) => m.metadata)).toEqual([metadata, metadata]);
    expect(withMetadata.messages?.[0]).toMatchObject({ reply_count: 1, thread_ts: root });
    expect(without.messages?.map((m) => m.metadata)).toEqual([undefined, undefined]);
  });

  it('pages conversations.history newest first with a cursor', async () => {
    const first = await postApproval();
    const second = await postApproval();
    await postApproval({ thread_ts: second });
    const third = await postApproval();

    const page1 = await slack.conversations.history({ channel: CHANNEL, limit: 2 });
    const page2 = await slack.conversations.history({
      channel: CHANNEL,
      limit: 2,
      cursor: page1.response_metadata?.next_cursor,
    });

    expect(page1.messages?.map((m) => m.ts)).toEqual([third, second]);
    expect(page1.has_more).toBe(true);
    expect(page2.messages?.map((m) => m.ts)).toEqual([first]);
    expect(page2.has_more).toBe(false);
  });

  it('rejects blocks that break Slack limits with invalid_blocks', async () => {
    const tooLong = [
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: 'approve',
            text: { type: 'plain_text', text: 'A'.repeat(76) },
          },
        ],
      },
    ];

    // Slack echoes the problems as [ERROR] response messages, which the SDK logs.
    const quiet = client(fake.botToken, { logger: silentLogger });

    await expect(
      quiet.chat.postMessage({ channel: CHANNEL, text: 'x', blocks: tooLong }),
    ).rejects.toMatchObject({
      data: { error: 'invalid_blocks', errors: [expect.stringContaining('/blocks/0/elements/0')] },
    });
    expect(fake.messages).toEqual([]);
  });

  it('surfaces an injected 429 as the SDK rate-limited error carrying Retry-After', async () => {
    fake.failNext('chat.postMessage', { rateLimit: 7 });

    const post = postApproval();

    await expect(post).rejects.toBeInstanceOf(WebAPIRateLimitedError);
    await expect(post).rejects.toMatchObject({ retryAfter: 7 });
    expect(fake.callsTo('chat.postMessage')).toHaveLength(1);
    expect(fake.messages).toEqual([]);
  });

  it('answers a 429 with an integer Retry-After header', async () => {
    fake.failNext('*', { rateLimit: 3 });

    const response = await fetch(`${fake.apiUrl}chat.postMessage`, { method: 'POST' });

    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ ok: false, error: 'ratelimited' });
  });

  it('surfaces an injected 500 as WebAPIHTTPError, then recovers once the faults are used up', async () => {
    fake.failNext('chat.postMessage', { status: 500 }, 2);

    for (let attempt = 0; attempt < 2; attempt += 1) {
      const post = postApproval();
      await expect(post).rejects.toBeInstanceOf(WebAPIHTTPError);
      await expect(post).rejects.toMatchObject({ statusCode: 500 });
    }
    await expect(postApproval()).resolves.toMatch(TS_FORMAT);
    expect(fake.callsTo('chat.postMessage').map((c) => c.fault)).toEqual([
      { status: 500 },
      { status: 500 },
      undefined,
    ]);
    expect(fake.messages).toHaveLength(1);
  });

  it('surfaces an injected Slack error as a platform error without applying the call', async () => {
    fake.failNext('chat.update', { error: 'cant_update_message' });
    const ts = await postApproval();

    const update = slack.chat.update({ channel: CHANNEL, ts, text: 'x' });

    await expect(update).rejects.toBeInstanceOf(WebAPIPlatformError);
    await expect(update).rejects.toMatchObject({
      message: 'An API error occurred: cant_update_message',
      data: { ok: false, error: 'cant_update_message' },
    });
    expect(fake.message(CHANNEL, ts)?.edits).toBe(0);
  });

  it('answers invalid_auth to a wrong token and not_authed to none', async () => {
    await expect(
      client('xoxb-wrong').chat.postMessage({ channel: CHANNEL, text: 'x' }),
    ).rejects.toMatchObject({ data: { error: 'invalid_auth' } });
    const bare = await fetch(`${fake.apiUrl}auth.test`, { method: 'POST' });
    expect(await bare.json()).toEqual({ ok: false, error: 'not_authed' });
    expect(fake.messages).toEqual([]);
  });

  it('answers unknown_method to a method it does not implement', async () => {
    await expect(slack.apiCall('chat.scheduleMessage', { channel: CHANNEL })).rejects.toMatchObject(
      {
        data: { error: 'unknown_method' },
      },
    );
  });

  it('accepts application/json bodies as Slack does', async () => {
    const response = await fetch(`${fake.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${fake.botToken}`,
        'content-type': 'application/json; charset=utf-8',
      },
      body: JSON.stringify({ channel: CHANNEL, text: 'json', blocks: approvalBlocks }),
    });

    expect(await response.json()).toMatchObject({ ok: true, channel: CHANNEL });
    expect(fake.calls[0]).toMatchObject({ encoding: 'json', args: { blocks: approvalBlocks } });
    expect(hasActions(fake.messages[0])).toBe(true);
  });

  it('applies a post and stays silent on acceptThenTimeout, so the client times out', async () => {
    fake.failNext('chat.postMessage', { acceptThenTimeout: true });
    const impatient = client(fake.botToken, { timeout: 100 });

    const post = impatient.chat.postMessage({ channel: CHANNEL, text: 'held' });

    await expect(post).rejects.toBeInstanceOf(WebAPIRequestError);
    expect(fake.messages).toMatchObject([{ channel: CHANNEL, text: 'held' }]);
    await fake.idle();
  });

  it('drops a hung call whose client gave up, and answers one whose client waited', async () => {
    fake.failNext('chat.postMessage', { hangMs: 60_000 });
    fake.failNext('chat.postMessage', { hangMs: 50 });
    const impatient = client(fake.botToken, { timeout: 100 });

    await expect(
      impatient.chat.postMessage({ channel: CHANNEL, text: 'lost' }),
    ).rejects.toBeInstanceOf(WebAPIRequestError);
    await fake.idle();
    expect(fake.messages).toEqual([]);
    await expect(postApproval()).resolves.toMatch(TS_FORMAT);
    expect(fake.messages).toHaveLength(1);
  });

  it('delays every call by the configured latency', async () => {
    fake.setLatencyMs(150);
    const started = Date.now();

    await slack.auth.test();

    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await expect(client(fake.botToken, { timeout: 50 }).auth.test()).rejects.toBeInstanceOf(
      WebAPIRequestError,
    );
  });

  it("lists a thread rooted in a person's message, the root without a bot id", async () => {
    const root = fake.addUserMessage({ channel: CHANNEL, user: 'U0ALICE', text: 'hey bot' });
    const reply = await postApproval({ thread_ts: root, metadata });

    const thread = await slack.conversations.replies({
      channel: CHANNEL,
      ts: root,
      include_all_metadata: true,
    });

    expect(thread.messages?.map((m) => [m.ts, m.user, m.bot_id])).toEqual([
      [root, 'U0ALICE', undefined],
      [reply, fake.identity.botUserId, fake.identity.botId],
    ]);
    expect(thread.messages?.[1].metadata).toEqual(metadata);
  });

  it("singles out one client's calls, and one channel's, for a fault", async () => {
    const replicaB = client(fake.botToken, { slackApiUrl: fake.apiUrlFor('replica-b') });
    fake.failNext('*', { error: 'fatal_error' }, Infinity, { client: 'replica-b' });
    fake.failNext('chat.postMessage', { error: 'channel_not_found' }, 1, { channel: 'C0OTHER' });

    await expect(replicaB.auth.test()).rejects.toMatchObject({ data: { error: 'fatal_error' } });
    await expect(slack.auth.test()).resolves.toMatchObject({ ok: true });
    await expect(postApproval()).resolves.toMatch(TS_FORMAT);
    await expect(slack.chat.postMessage({ channel: 'C0OTHER', text: 'x' })).rejects.toMatchObject({
      data: { error: 'channel_not_found' },
    });

    expect(fake.calls.map((c) => [c.method, c.client, c.fault !== undefined])).toEqual([
      ['auth.test', 'replica-b', true],
      ['auth.test', undefined, false],
      ['chat.postMessage', undefined, false],
      ['chat.postMessage', undefined, true],
    ]);
    fake.clearFaults();
    await expect(replicaB.auth.test()).resolves.toMatchObject({ ok: true });
    expect(fake.tally()).toEqual({ calls: 5, posts: 1, edits: 0 });
  });
});

describe('SlackApiFake on a fixed port', () => {
  it('listens where it is told, so a binding started by hand can be pointed at it', async () => {
    const first = new SlackApiFake();
    await first.start();
    const port = Number(new URL(first.apiUrl).port);
    await first.stop();

    const fake = new SlackApiFake();
    const { apiUrl } = await fake.start({ port });
    try {
      expect(apiUrl).toBe(`http://127.0.0.1:${port}/api/`);
      const slack = new WebClient(fake.botToken, { slackApiUrl: apiUrl, logLevel: LogLevel.ERROR });
      await expect(slack.auth.test()).resolves.toMatchObject({ ok: true });
    } finally {
      await fake.stop();
    }
  });
});

describe('SlackApiFake shutdown', () => {
  const tcpHandles = (): number =>
    process.getActiveResourcesInfo().filter((r) => r.startsWith('TCP')).length;

  it('stops promptly with a held request open and leaves no sockets behind', async () => {
    const baseline = tcpHandles();
    const fake = new SlackApiFake();
    const { apiUrl } = await fake.start();
    const slack = new WebClient(fake.botToken, {
      slackApiUrl: apiUrl,
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
    });
    await slack.auth.test();
    fake.failNext('chat.postMessage', { acceptThenTimeout: true });
    const held = slack.chat.postMessage({ channel: CHANNEL, text: 'never answered' });
    await waitFor('the held post to arrive', () => fake.messages.length === 1);

    const stopping = Date.now();
    await fake.stop();

    expect(Date.now() - stopping).toBeLessThan(1000);
    await expect(held).rejects.toBeInstanceOf(WebAPIRequestError);
    expect(fake.openSockets).toBe(0);
    await waitFor('TCP handles back to baseline', () => tcpHandles() <= baseline);
    await expect(slack.auth.test()).rejects.toBeInstanceOf(WebAPIRequestError);
  });
});
