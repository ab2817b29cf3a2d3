import { SlackDriver } from '../contract/drivers/slack.driver';
import { SLACK_FAKE_DEFAULTS } from '@tollgate/platform-standins';
import {
  botMessageEvent,
  channelMessageEvent,
  directMessageEvent,
  eventCallback,
  messageChangedEvent,
  messageDeletedEvent,
  urlVerification,
} from '@tollgate/platform-standins';
import { signSlackRequest } from '@tollgate/platform-standins';
import { BindingFixture } from '../support/binding.fixture';
import { alice } from '../support/commands';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

/** The Slack-only rules of docs/protocol.md §1.1, at the binding's HTTP endpoint. */
describe('Slack events endpoint (process)', () => {
  const driver = new SlackDriver();
  let binding: BindingFixture;
  const team = SLACK_FAKE_DEFAULTS.teamId;

  beforeAll(async () => {
    await driver.start();
    binding = await BindingFixture.create('slack-binding', 'slackevents', () =>
      driver.bindingEnv(),
    );
  });

  afterAll(async () => {
    await binding?.dispose();
    await driver.stop();
  });

  async function post(body: Record<string, unknown>): Promise<Response> {
    const raw = JSON.stringify(body);
    return fetch(`${binding.url}/slack/events`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signSlackRequest(driver.bindingEnv().SLACK_SIGNING_SECRET, raw),
      },
      body: raw,
    });
  }

  const event = (e: Record<string, unknown>) =>
    post(eventCallback({ teamId: team, event: e, eventId: `Ev${uniqueToken('')}` }));

  it('answers URL verification with the challenge', async () => {
    const response = await post(urlVerification('the-challenge'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ challenge: 'the-challenge' });
  });

  it('forwards a direct message and thread replies only once the thread has a session', async () => {
    const channelId = `D${uniqueToken('').toUpperCase()}`;
    await event(
      directMessageEvent({
        channelId,
        userId: alice.id,
        text: 'hi there',
        ts: '1800000001.000001',
      }),
    );
    await waitFor('the direct message command', () =>
      binding.commands.find(
        (c) => c.command.type === 'UserMessage' && c.command.text === 'hi there',
      ),
    );

    const channel = `C${uniqueToken('').toUpperCase()}`;
    const root = '1800000002.000001';
    // A reply in a thread the bot never joined is not addressed to it.
    await event(
      channelMessageEvent({
        channelId: channel,
        userId: alice.id,
        text: 'chatter',
        ts: '1800000002.000002',
        threadTs: root,
      }),
    );
    // Our own post, an edit and a deletion in that thread are never forwarded either.
    await event(
      botMessageEvent({
        channelId: channel,
        text: 'bot says',
        ts: '1800000002.000003',
        threadTs: root,
      }),
    );
    await event(
      messageChangedEvent({
        channelId: channel,
        eventTs: '1800000002.000004',
        message: {
          ts: '1800000002.000002',
          text: 'chatter (edited)',
          user: alice.id,
          thread_ts: root,
        },
      }),
    );
    await event(
      messageDeletedEvent({
        channelId: channel,
        eventTs: '1800000002.000005',
        deletedTs: '1800000002.000002',
      }),
    );
    // A mention starts the session; the next plain reply in the thread then counts.
    await driver.say(
      binding.url,
      { platform: 'slack', workspaceId: team, channelId: channel, threadId: root },
      'start',
      alice,
    );
    await event(
      channelMessageEvent({
        channelId: channel,
        userId: alice.id,
        text: 'follow-up',
        ts: '1800000002.000006',
        threadTs: root,
      }),
    );
    await waitFor('the follow-up command', () =>
      binding.commands.find(
        (c) => c.command.type === 'UserMessage' && c.command.text === 'follow-up',
      ),
    );
    const inThread = binding.commands
      .map((c) => c.command)
      .filter((c) => c.type === 'UserMessage' && c.conversation.channelId === channel);
    expect(inThread.map((c) => (c.type === 'UserMessage' ? c.text : ''))).toEqual([
      'start',
      'follow-up',
    ]);
  });
});
