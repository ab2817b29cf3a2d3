import { serialize, deserialize } from 'node:v8';
import { REST } from '@discordjs/rest';
import { Client4 } from '@mattermost/client';
import { LogLevel, WebClient } from '@slack/web-api';
import { Routes } from 'discord-api-types/v10';
import { DiscordApiFake } from './discord-api.fake';
import { MattermostApiFake } from './mattermost-api.fake';
import { SlackApiFake } from './slack-api.fake';

/**
 * `npm start` keeps each stand-in's conversations across runs: what one process snapshots,
 * another restores, and the official SDK then edits the same message, as a binding refreshing
 * its prompts after a restart does.
 */
const roundTrip = <T>(value: T): T => deserialize(serialize(value)) as T;

describe('platform stand-ins survive a restart through snapshot and restore', () => {
  const stopped: Array<{ stop(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(stopped.splice(0).map((fake) => fake.stop()));
  });

  it('Slack: a message posted before is edited after, and new ts do not repeat', async () => {
    const before = new SlackApiFake();
    await before.start();
    stopped.push(before);
    const slack = (fake: SlackApiFake) =>
      new WebClient(fake.botToken, {
        slackApiUrl: fake.apiUrl,
        retryConfig: { retries: 0 },
        logLevel: LogLevel.ERROR,
      });
    const posted = await slack(before).chat.postMessage({ channel: 'C1', text: 'pending' });

    const after = new SlackApiFake();
    after.restore(roundTrip(before.snapshot()));
    await after.start();
    stopped.push(after);
    await slack(after).chat.update({ channel: 'C1', ts: posted.ts!, text: 'still valid' });
    const next = await slack(after).chat.postMessage({ channel: 'C1', text: 'new' });

    expect(after.message('C1', posted.ts!)).toMatchObject({ text: 'still valid', edits: 1 });
    expect(next.ts).not.toBe(posted.ts);
  });

  it('Discord: a message posted before is edited after, and new ids do not repeat', async () => {
    const before = new DiscordApiFake();
    await before.start();
    stopped.push(before);
    const rest = (fake: DiscordApiFake) =>
      new REST({ api: fake.apiUrl, retries: 0 }).setToken(fake.botToken);
    const posted = (await rest(before).post(Routes.channelMessages('42'), {
      body: { content: 'pending' },
    })) as { id: string };

    const after = new DiscordApiFake();
    after.restore(roundTrip(before.snapshot()));
    await after.start();
    stopped.push(after);
    await rest(after).patch(Routes.channelMessage('42', posted.id), {
      body: { content: 'still valid' },
    });
    const next = (await rest(after).post(Routes.channelMessages('42'), {
      body: { content: 'new' },
    })) as { id: string };

    expect(after.message('42', posted.id)).toMatchObject({ content: 'still valid', edits: 1 });
    expect(next.id).not.toBe(posted.id);
  });

  it('Mattermost: a post and the channel members survive, and the post is patched after', async () => {
    const before = new MattermostApiFake();
    await before.start();
    stopped.push(before);
    before.addChannelMembers('c'.repeat(26), ['alice']);
    const client = (fake: MattermostApiFake) => {
      const c = new Client4();
      c.setUrl(fake.apiUrl);
      c.setToken(fake.token);
      return c;
    };
    const posted = await client(before).createPost({
      channel_id: 'c'.repeat(26),
      message: 'pending',
    });

    const after = new MattermostApiFake();
    after.restore(roundTrip(before.snapshot()));
    await after.start();
    stopped.push(after);
    await client(after).patchPost({ id: posted.id, message: 'still valid' });

    expect(after.post(posted.id)).toMatchObject({ message: 'still valid', edits: 1 });
    expect(after.isChannelMember('c'.repeat(26), 'alice')).toBe(true);
  });
});
