import { DiscordDriver } from '../contract/drivers/discord.driver';
import {
  askCommandInteraction,
  buttonClickInteraction,
  interactionToken,
  nextSnowflake,
  pingInteraction,
  signDiscordRequest,
} from '@tollgate/platform-standins';
import { BindingFixture } from '../support/binding.fixture';
import { bob } from '../support/commands';
import { rejectedOutput, requestOutput } from '../support/outputs';
import { waitFor } from '../support/wait-for';

/** The Discord-only rules of docs/protocol.md §1.1 and §5, at the binding's HTTP endpoint. */
describe('Discord interactions endpoint (process)', () => {
  const driver = new DiscordDriver();
  let binding: BindingFixture;
  const app = () => driver.fake.applicationId;
  const alice = { id: '80351110224678912', username: 'alice', global_name: 'Alice' };

  beforeAll(async () => {
    await driver.start();
    binding = await BindingFixture.create('discord-binding', 'discordinter', () =>
      driver.bindingEnv(),
    );
  });

  afterAll(async () => {
    await binding?.dispose();
    await driver.stop();
  });

  function post(body: Record<string, unknown>, signed = true): Promise<Response> {
    const raw = JSON.stringify(body);
    const now = Math.floor(Date.now() / 1000);
    return fetch(`${binding.url}/discord/interactions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(signed ? signDiscordRequest(driver.keys.privateKey, now, raw) : {}),
      },
      body: raw,
    });
  }

  it('answers a signed PING with a PONG, and an unsigned one with 401', async () => {
    const ping = await post(pingInteraction(app()));
    expect(ping.status).toBe(200);
    expect(ping.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await ping.json()).toEqual({ type: 1 });
    expect((await post(pingInteraction(app()), false)).status).toBe(401);
  });

  it('R1 /ask is forwarded with its conversation and acknowledged once stored', async () => {
    const token = interactionToken();
    const channelId = nextSnowflake();
    driver.fake.issueInteraction({ token, userId: alice.id, channelId });
    const id = nextSnowflake();
    const response = await post(
      askCommandInteraction({
        applicationId: app(),
        id,
        token,
        guildId: driver.fake.guildId,
        channelId,
        user: alice,
        text: 'hello from discord',
      }),
    );
    expect(await response.json()).toEqual({
      type: 4,
      data: { content: 'Sent to the agent.', allowed_mentions: { parse: [] } },
    });
    const published = await waitFor('the UserMessage', () =>
      binding.commands.find((c) => c.command.id === id),
    );
    expect(published.command).toMatchObject({
      type: 'UserMessage',
      text: 'hello from discord',
      sender: { id: alice.id, displayName: 'Alice' },
      conversation: {
        platform: 'discord',
        workspaceId: driver.fake.guildId,
        channelId,
        threadId: '',
      },
    });
    // Answered in the response itself: nothing is left to a follow-up that could fail unseen.
    expect(driver.fake.original(token)).toBeUndefined();
  });

  it('/ask in a DM has no workspace', async () => {
    const token = interactionToken();
    const channelId = nextSnowflake();
    driver.fake.issueInteraction({ token, userId: alice.id, channelId });
    const id = nextSnowflake();
    await post(
      askCommandInteraction({
        applicationId: app(),
        id,
        token,
        channelId,
        user: alice,
        text: 'dm',
      }),
    );
    const published = await waitFor('the UserMessage', () =>
      binding.commands.find((c) => c.command.id === id),
    );
    expect(published.command.conversation).toEqual({
      platform: 'discord',
      workspaceId: '',
      channelId,
      threadId: '',
    });
  });

  it('a command other than /ask is explained to its sender only, and publishes nothing', async () => {
    const id = nextSnowflake();
    const interaction = askCommandInteraction({
      applicationId: app(),
      id,
      guildId: driver.fake.guildId,
      channelId: nextSnowflake(),
      user: alice,
      text: 'x',
    });
    const response = await post({ ...interaction, data: { id: '1', name: 'other', type: 1 } });
    expect(await response.json()).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(binding.commands.some((c) => c.command.id === id)).toBe(false);
  });

  it('R1 a click on a prompt the binding never showed is told privately in the answer itself', async () => {
    const token = interactionToken();
    const channelId = nextSnowflake();
    driver.fake.issueInteraction({ token, userId: alice.id, channelId });
    const response = await post(
      buttonClickInteraction({
        applicationId: app(),
        token,
        guildId: driver.fake.guildId,
        channelId,
        user: alice,
        customId: 'tg:approve_once:nosuchprompt',
        messageId: nextSnowflake(),
      }),
    );
    const reply = (await response.json()) as { type: number; data: { content: string } };
    expect(reply).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(reply.data.content).toMatch(/no longer valid/);
    expect(driver.fake.notices.filter((n) => n.userId === alice.id)).toEqual([]);
  });

  it('a refusal of a click is an ephemeral follow-up on that click, not a DM', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_notice', 5);
    await binding.publish(request);
    const message = await waitFor('the prompt', () => driver.messagesIn(conversation)[0]);
    const deny = message.buttons.find((b) => b.label === 'Deny')!;
    expect((await driver.click(binding.url, message, deny, bob)).status).toBe(200);
    await waitFor('the click', () =>
      binding.commands.find((c) => c.command.sessionId === request.sessionId),
    );
    await binding.publish(rejectedOutput(request, 6, bob));
    const notice = await waitFor('the notice', () =>
      driver.fake.notices.find((n) => n.userId === bob.id),
    );
    expect(notice).toMatchObject({
      via: 'ephemeral_followup',
      channelId: conversation.channelId,
      content: expect.stringContaining('Only the person'),
    });
  });
});
