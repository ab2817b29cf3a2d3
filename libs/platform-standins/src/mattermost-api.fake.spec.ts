import { Client4, ClientError } from '@mattermost/client';
import type { Post } from '@mattermost/types/posts';
import { MATTERMOST_FAKE_DEFAULTS, MattermostApiFake } from './mattermost-api.fake';

/** The fake as the real Client4 sees it: the binding's adapter talks to it only through Client4. */
describe('MattermostApiFake through the real Client4', () => {
  const fake = new MattermostApiFake();
  const CHANNEL = 'channel000000000000000000a';
  let client: Client4;

  function clientFor(url: string, token = fake.token): Client4 {
    const c = new Client4();
    c.setUrl(url);
    c.setToken(token);
    return c;
  }

  const buttonProps = {
    attachments: [
      {
        text: 'choose',
        actions: [
          {
            id: 'approveonce',
            type: 'button',
            name: 'Approve once',
            style: 'primary',
            integration: {
              url: 'http://binding.test/mattermost/actions',
              context: { callId: 'c1', sig: 'abc' },
            },
          },
        ],
      },
    ],
  };

  beforeAll(async () => {
    await fake.start();
    client = clientFor(fake.apiUrl);
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await fake.stop();
    expect(fake.openSockets).toBe(0);
  });

  it('default-imports Client4 as a class (CommonJS interop)', () => {
    expect(typeof Client4).toBe('function');
    expect(client.getUrl()).toBe(fake.apiUrl);
  });

  it('creates a post (201) with a 26-character id and strips integrations from what it returns', async () => {
    const root = fake.addUserPost({ channel_id: CHANNEL, user_id: 'someone', message: 'hi' });
    const created = await client.createPost({
      channel_id: CHANNEL,
      root_id: root,
      message: 'prompt',
      props: buttonProps,
    });
    expect(created.id).toMatch(/^[a-z0-9]{26}$/);
    expect(created).toMatchObject({ channel_id: CHANNEL, root_id: root, message: 'prompt' });
    expect(created.user_id).toBe(MATTERMOST_FAKE_DEFAULTS.botUserId);
    const returned = (created.props as typeof buttonProps).attachments[0].actions[0];
    expect(returned).not.toHaveProperty('integration');
    expect(returned).toMatchObject({ id: 'approveonce', name: 'Approve once' });
    // Kept stored, as the real server keeps it for the click.
    const stored = fake.post(created.id)!.props.attachments![0].actions![0];
    expect(stored.integration).toEqual(buttonProps.attachments[0].actions[0].integration);
    const fetched = await client.getPost(created.id);
    expect((fetched.props as typeof buttonProps).attachments[0].actions[0]).not.toHaveProperty(
      'integration',
    );
    const call = fake.callsTo('createPost')[0];
    expect(call.authorization).toBe(`BEARER ${fake.token}`);
  });

  it('updatePost blanks omitted fields; patchPost keeps them; both count as edits', async () => {
    const created = await client.createPost({
      channel_id: CHANNEL,
      message: 'one',
      props: buttonProps,
    });
    await client.patchPost({ id: created.id, message: 'two' });
    expect(fake.post(created.id)).toMatchObject({ message: 'two', edits: 1 });
    expect(fake.post(created.id)!.props.attachments).toHaveLength(1);
    await client.updatePost({ id: created.id, message: 'three' } as Post);
    expect(fake.post(created.id)).toMatchObject({ message: 'three', props: {}, edits: 2 });
    expect(fake.post(created.id)!.history.map((v) => v.message)).toEqual(['one', 'two', 'three']);
  });

  it('reads a thread and records ephemeral posts', async () => {
    const root = fake.addUserPost({ channel_id: CHANNEL, user_id: 'someone', message: 'root' });
    const reply = await client.createPost({ channel_id: CHANNEL, root_id: root, message: 'r' });
    const thread = await client.getPaginatedPostThread(root, { fetchAll: true });
    expect(Object.keys(thread.posts).sort()).toEqual([root, reply.id].sort());
    await client.createPostEphemeral('user1', {
      channel_id: CHANNEL,
      root_id: root,
      message: 'only you',
    });
    expect(fake.ephemerals).toEqual([
      expect.objectContaining({ user_id: 'user1', channel_id: CHANNEL, message: 'only you' }),
    ]);
  });

  it('answers errors as AppError bodies Client4 reads into ClientError', async () => {
    const error: unknown = await client.getPost('nosuchpost00000000000000000').catch((e) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ status_code: 404, server_error_id: 'app.post.get.app_error' });
    const stranger = clientFor(fake.apiUrl, 'wrong-token');
    await expect(stranger.getMe()).rejects.toMatchObject({ status_code: 401 });
  });

  it('X3 answers channel membership as Client4.getChannelMember reads it: 200 for a member, 404 otherwise', async () => {
    fake.addChannelMembers(CHANNEL, ['member1']);
    await expect(client.getChannelMember(CHANNEL, 'member1')).resolves.toMatchObject({
      channel_id: CHANNEL,
      user_id: 'member1',
      roles: 'channel_user',
    });
    const stranger: unknown = await client.getChannelMember(CHANNEL, 'stranger').catch((e) => e);
    expect(stranger).toBeInstanceOf(ClientError);
    expect(stranger).toMatchObject({
      status_code: 404,
      server_error_id: 'app.channel.get_member.missing.app_error',
    });
    fake.removeChannelMember(CHANNEL, 'member1');
    await expect(client.getChannelMember(CHANNEL, 'member1')).rejects.toMatchObject({
      status_code: 404,
    });
    expect(fake.callsTo('getChannelMember').map((c) => [c.path, c.channel])).toEqual([
      [`/api/v4/channels/${CHANNEL}/members/member1`, CHANNEL],
      [`/api/v4/channels/${CHANNEL}/members/stranger`, CHANNEL],
      [`/api/v4/channels/${CHANNEL}/members/member1`, CHANNEL],
    ]);
    fake.failNext('getChannelMember', { status: 503 });
    await expect(client.getChannelMember(CHANNEL, 'member1')).rejects.toMatchObject({
      status_code: 503,
    });
  });

  it('X13 answers a person and a post by id as Client4.getUser and getPost read them', async () => {
    fake.addChannelMembers(CHANNEL, ['member1', 'member2']);
    fake.setUsername('member1', 'alice');
    await expect(client.getUser('member1')).resolves.toMatchObject({
      id: 'member1',
      username: 'alice',
    });
    await expect(client.getUser('member2')).resolves.toMatchObject({ username: 'member2' });
    await expect(client.getUser('nobody')).rejects.toMatchObject({ status_code: 404 });
    const id = fake.addUserPost({ channel_id: CHANNEL, user_id: 'member1', message: 'yes' });
    await expect(client.getPost(id)).resolves.toMatchObject({
      id,
      user_id: 'member1',
      channel_id: CHANNEL,
      message: 'yes',
    });
    expect(fake.callsTo('getUser').map((c) => c.path)).toEqual([
      '/api/v4/users/member1',
      '/api/v4/users/member2',
      '/api/v4/users/nobody',
    ]);
  });

  it('fails the next calls as told: 5xx, 429 with Retry-After, refusal; scoped to a replica', async () => {
    const replica = clientFor(fake.apiUrlFor('r1'));
    fake.failNext('createPost', { status: 503 });
    await expect(client.createPost({ channel_id: CHANNEL, message: 'x' })).rejects.toMatchObject({
      status_code: 503,
    });
    fake.failNext('createPost', { rateLimit: 2 });
    await expect(client.createPost({ channel_id: CHANNEL, message: 'x' })).rejects.toMatchObject({
      status_code: 429,
    });
    fake.failNext('*', { refuse: 403 }, 1, { client: 'r1' });
    await expect(client.createPost({ channel_id: CHANNEL, message: 'ok' })).resolves.toBeDefined();
    await expect(replica.createPost({ channel_id: CHANNEL, message: 'x' })).rejects.toMatchObject({
      status_code: 403,
    });
    expect(fake.posts.map((p) => p.message)).toEqual(['ok']);
    expect(fake.calls.map((c) => c.client)).toEqual([undefined, undefined, undefined, 'r1']);
    expect(fake.calls[3].path).toBe('/api/v4/posts');
  });

  it('a hung call applies nothing; an accepted one is stored though never answered', async () => {
    fake.failNext('createPost', { hangMs: Infinity });
    const controller = new AbortController();
    const hung = fetch(`${fake.apiUrl}/api/v4/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel_id: CHANNEL, message: 'hung' }),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    fake.failNext('createPost', { acceptThenTimeout: true, answerAfterMs: 20 });
    const accepted = await client.createPost({ channel_id: CHANNEL, message: 'accepted' });
    controller.abort();
    await hung;
    expect(accepted.message).toBe('accepted');
    expect(fake.posts.map((p) => p.message)).toEqual(['accepted']);
  });

  it('delays answers by the latency set', async () => {
    fake.setLatencyMs(60);
    const started = Date.now();
    await client.createPost({ channel_id: CHANNEL, message: 'slow' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });
});
