import { DiscordAPIError, HTTPError, RateLimitError, REST } from '@discordjs/rest';
import { Routes } from 'discord-api-types/v10';
import { DiscordApiFake } from './discord-api.fake';
import { interactionToken } from './discord-signing';

const CHANNEL = '1200000000000000777';

const approvalRow = {
  type: 1,
  components: [
    { type: 2, style: 1, label: 'Approve', custom_id: 'tg:approve:ref1' },
    { type: 2, style: 4, label: 'Deny', custom_id: 'tg:deny:ref1' },
  ],
};

interface Posted {
  id: string;
  channel_id: string;
  content: string;
  components: unknown[];
  author: { id: string; bot: boolean };
  nonce?: string;
}

describe('DiscordApiFake through the real @discordjs/rest client', () => {
  const fake = new DiscordApiFake();
  let rest: REST;

  function client(api: string, token = fake.botToken, timeout = 300): REST {
    return new REST({ api, retries: 0, timeout, rejectOnRateLimit: () => true }).setToken(token);
  }

  beforeAll(async () => {
    await fake.start();
    rest = client(fake.apiUrl);
  });
  afterEach(() => fake.reset());
  afterAll(async () => {
    await fake.stop();
    expect(fake.openSockets).toBe(0);
  });

  it('posts a message with buttons, edits it, and removes the buttons with components: []', async () => {
    const posted = (await rest.post(Routes.channelMessages(CHANNEL), {
      body: { content: 'Approve?', components: [approvalRow] },
    })) as Posted;
    expect(posted).toMatchObject({
      channel_id: CHANNEL,
      content: 'Approve?',
      author: { id: fake.applicationId, bot: true },
    });
    expect(posted.id).toMatch(/^\d{17,20}$/);

    await rest.patch(Routes.channelMessage(CHANNEL, posted.id), { body: { content: 'still?' } });
    expect(fake.message(CHANNEL, posted.id)).toMatchObject({
      content: 'still?',
      components: [approvalRow],
      edits: 1,
    });
    await rest.patch(Routes.channelMessage(CHANNEL, posted.id), {
      body: { content: 'Denied', components: [] },
    });
    expect(fake.message(CHANNEL, posted.id)).toMatchObject({ components: [], edits: 2 });
    const call = fake.callsTo('editMessage')[1];
    expect(call).toMatchObject({ httpMethod: 'PATCH', channel: CHANNEL });
  });

  it('a repeat with the same enforced nonce returns the same message instead of a second', async () => {
    const body = { content: 'once', nonce: 'pref1', enforce_nonce: true };
    const first = (await rest.post(Routes.channelMessages(CHANNEL), { body })) as Posted;
    const second = (await rest.post(Routes.channelMessages(CHANNEL), { body })) as Posted;
    expect(second.id).toBe(first.id);
    expect(fake.messages).toHaveLength(1);
    expect(fake.callsTo('createMessage')).toHaveLength(2);
    // Without enforce_nonce, Discord makes no promise: a second message.
    await rest.post(Routes.channelMessages(CHANNEL), { body: { content: 'twice', nonce: 'x' } });
    await rest.post(Routes.channelMessages(CHANNEL), { body: { content: 'twice', nonce: 'x' } });
    expect(fake.messages).toHaveLength(3);
  });

  it('lists a channel newest first', async () => {
    for (const content of ['a', 'b', 'c']) {
      await rest.post(Routes.channelMessages(CHANNEL), { body: { content } });
    }
    const listed = (await rest.get(Routes.channelMessages(CHANNEL), {
      query: new URLSearchParams({ limit: '2' }),
    })) as Posted[];
    expect(listed.map((m) => m.content)).toEqual(['c', 'b']);
  });

  it('refuses what Discord refuses: a bad token, an empty message, a long custom_id', async () => {
    await expect(
      client(fake.apiUrl, 'wrong').post(Routes.channelMessages(CHANNEL), {
        body: { content: 'x' },
      }),
    ).rejects.toMatchObject({ status: 401 });
    await expect(
      rest.post(Routes.channelMessages(CHANNEL), { body: { content: '' } }),
    ).rejects.toMatchObject({ code: 50006 });
    await expect(
      rest.post(Routes.channelMessages(CHANNEL), {
        body: {
          components: [
            {
              type: 1,
              components: [{ type: 2, style: 1, label: 'x', custom_id: 'x'.repeat(101) }],
            },
          ],
        },
      }),
    ).rejects.toMatchObject({ code: 50035 });
    expect(fake.messages).toHaveLength(0);
  });

  it('an ephemeral follow-up is a notice to the interaction’s person; a DM to its recipient', async () => {
    const token = interactionToken();
    fake.issueInteraction({ token, userId: '42', channelId: CHANNEL });
    await rest.post(Routes.webhook(fake.applicationId, token), {
      body: { content: 'only you', flags: 64 },
      auth: false,
    });
    await rest.patch(Routes.webhookMessage(fake.applicationId, token, '@original'), {
      body: { content: 'Sent to the agent.' },
      auth: false,
    });
    expect(fake.original(token)).toEqual({ content: 'Sent to the agent.', edits: 1 });
    const dm = (await rest.post(Routes.userChannels(), { body: { recipient_id: '43' } })) as {
      id: string;
    };
    await rest.post(Routes.channelMessages(dm.id), { body: { content: 'psst' } });
    expect(fake.notices.map((n) => [n.userId, n.content, n.via])).toEqual([
      ['42', 'only you', 'ephemeral_followup'],
      ['43', 'psst', 'dm'],
    ]);
    // Neither shows in a channel.
    expect(fake.messages).toHaveLength(0);
    await expect(
      rest.post(Routes.webhook(fake.applicationId, 'unknown-token'), {
        body: { content: 'x', flags: 64 },
        auth: false,
      }),
    ).rejects.toMatchObject({ code: 50027 });
  });

  it('bulk-overwrites application commands, globally and per guild, keeping ids by name', async () => {
    const ask = {
      name: 'ask',
      type: 1,
      description: 'Send a message',
      options: [{ type: 3, name: 'text', description: 'Your message', required: true }],
    };
    const first = (await rest.put(Routes.applicationCommands(fake.applicationId), {
      body: [ask, { name: 'other', description: 'Another' }],
    })) as Array<{ id: string; name: string; application_id: string }>;
    expect(first.map((c) => c.name)).toEqual(['ask', 'other']);
    expect(first[0]).toMatchObject({ application_id: fake.applicationId, options: ask.options });
    // An overwrite replaces the whole list; a command of the same name keeps its id.
    const second = (await rest.put(Routes.applicationCommands(fake.applicationId), {
      body: [ask],
    })) as Array<{ id: string }>;
    expect(second.map((c) => c.id)).toEqual([first[0].id]);
    expect(fake.commands().map((c) => c.name)).toEqual(['ask']);

    await rest.put(Routes.applicationGuildCommands(fake.applicationId, fake.guildId), {
      body: [ask],
    });
    expect(fake.commands(fake.guildId)).toMatchObject([{ name: 'ask', guild_id: fake.guildId }]);
    expect(fake.callsTo('overwriteCommands')).toHaveLength(3);

    await expect(
      rest.put(Routes.applicationCommands(fake.applicationId), {
        body: [{ ...ask, name: 'Ask Me' }],
      }),
    ).rejects.toMatchObject({ status: 400, code: 50035 });
    await expect(
      rest.put(Routes.applicationCommands('1100000000000000999'), { body: [ask] }),
    ).rejects.toMatchObject({ status: 403, code: 50001 });
    await expect(
      client(fake.apiUrl, 'wrong-token').put(Routes.applicationCommands(fake.applicationId), {
        body: [ask],
      }),
    ).rejects.toBeInstanceOf(DiscordAPIError);
    expect(fake.commands().map((c) => c.name)).toEqual(['ask']);
  });

  describe('faults', () => {
    it('a 5xx is an HTTPError after one request', async () => {
      fake.failNext('createMessage', { status: 503 });
      const error: unknown = await rest
        .post(Routes.channelMessages(CHANNEL), { body: { content: 'x' } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HTTPError);
      expect((error as HTTPError).status).toBe(503);
      expect(fake.messages).toHaveLength(0);
    });

    it('a 429 is a RateLimitError carrying Retry-After in ms', async () => {
      fake.failNext('editMessage', { rateLimit: 2 });
      const error: unknown = await rest
        .patch(Routes.channelMessage(CHANNEL, '1'), { body: { content: 'x' } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfter).toBeGreaterThanOrEqual(2_000);
      expect(fake.callsTo('editMessage')).toHaveLength(1);
    });

    it('a refusal is a DiscordAPIError with its code', async () => {
      fake.failNext('*', { refuse: { status: 404, code: 10003, message: 'Unknown Channel' } });
      const error: unknown = await rest
        .post(Routes.channelMessages(CHANNEL), { body: { content: 'x' } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DiscordAPIError);
      expect(error).toMatchObject({ status: 404, code: 10003 });
    });

    it('a hang times out and applies nothing; accept-then-timeout applies it', async () => {
      fake.failNext('createMessage', { hangMs: Infinity });
      await expect(
        rest.post(Routes.channelMessages(CHANNEL), { body: { content: 'held' } }),
      ).rejects.toMatchObject({ name: 'AbortError' });
      expect(fake.messages).toHaveLength(0);

      fake.failNext('createMessage', { acceptThenTimeout: true });
      const body = { content: 'taken', nonce: 'n1', enforce_nonce: true };
      await expect(rest.post(Routes.channelMessages(CHANNEL), { body })).rejects.toMatchObject({
        name: 'AbortError',
      });
      expect(fake.messages.map((m) => m.content)).toEqual(['taken']);
      // The retry with the same nonce gets that message back.
      const again = (await rest.post(Routes.channelMessages(CHANNEL), { body })) as Posted;
      expect(again.id).toBe(fake.messages[0].id);
    });

    it('faults single out a client (replica) and a channel', async () => {
      const replica = client(fake.apiUrlFor('r1'));
      fake.failNext('*', { status: 500 }, Infinity, { client: 'r1', channel: CHANNEL });
      await rest.post(Routes.channelMessages(CHANNEL), { body: { content: 'main' } });
      await replica.post(Routes.channelMessages('999'), { body: { content: 'other channel' } });
      await expect(
        replica.post(Routes.channelMessages(CHANNEL), { body: { content: 'x' } }),
      ).rejects.toBeInstanceOf(HTTPError);
      expect(fake.calls.map((c) => [c.client, c.channel, c.fault !== undefined])).toEqual([
        [undefined, CHANNEL, false],
        ['r1', '999', false],
        ['r1', CHANNEL, true],
      ]);
      fake.clearFaults();
      await replica.post(Routes.channelMessages(CHANNEL), { body: { content: 'ok' } });
    });

    it('latency delays the answer', async () => {
      fake.setLatencyMs(50);
      const started = Date.now();
      await rest.post(Routes.channelMessages(CHANNEL), { body: { content: 'slow' } });
      expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    });
  });
});
