import { signAction } from '../../apps/mattermost-binding/src/inbound/action-signature';
import { MattermostDriver } from '../contract/drivers/mattermost.driver';
import { MATTERMOST_FAKE_DEFAULTS } from '@tollgate/platform-standins';
import {
  actionCallbackBody,
  outgoingWebhookBody,
  slashCommandBody,
} from '@tollgate/platform-standins';
import { BindingFixture } from '../support/binding.fixture';
import { alice } from '../support/commands';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

/** The Mattermost-only inbound rules (docs/protocol.md §1.1, §5), at the binding's HTTP endpoints. */
describe('Mattermost endpoints (process)', () => {
  const driver = new MattermostDriver();
  let binding: BindingFixture;
  const team = MATTERMOST_FAKE_DEFAULTS.teamId;

  beforeAll(async () => {
    await driver.start();
    binding = await BindingFixture.create('mattermost-binding', 'mmendpoints', () =>
      driver.bindingEnv(),
    );
  });

  afterAll(async () => {
    await binding?.dispose();
    await driver.stop();
  });

  const token = () => driver.bindingEnv().MATTERMOST_COMMAND_TOKEN;
  const channel = () => uniqueToken('ch').padEnd(26, '0');

  it('takes a slash command as JSON too, and acknowledges it to its caller only', async () => {
    const channelId = channel();
    const body = Object.fromEntries(
      slashCommandBody({
        token: token(),
        teamId: team,
        channelId,
        userId: alice.id,
        userName: 'alice',
        text: 'json hello',
        triggerId: `trig${uniqueToken('')}`,
      }),
    );
    const response = await fetch(`${binding.url}/mattermost/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ response_type: 'ephemeral' });
    const published = await waitFor('the command', () =>
      binding.commands.find((c) => c.command.conversation.channelId === channelId),
    );
    expect(published.command).toMatchObject({
      type: 'UserMessage',
      id: `mattermost:${body.trigger_id}`,
      text: 'json hello',
      sender: { id: alice.id, displayName: 'alice' },
      conversation: { platform: 'mattermost', workspaceId: team, channelId, threadId: '' },
    });
  });

  it('takes an outgoing webhook: the root post is the thread, its id the command id, and says nothing back', async () => {
    const channelId = channel();
    const postId = uniqueToken('post').padEnd(26, '0');
    const response = await fetch(`${binding.url}/mattermost/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: outgoingWebhookBody({
        token: token(),
        teamId: team,
        channelId,
        userId: alice.id,
        postId,
        text: 'webhook hello',
      }).toString(),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    const published = await waitFor('the command', () =>
      binding.commands.find((c) => c.command.conversation.channelId === channelId),
    );
    expect(published.command).toMatchObject({
      id: `mattermost:${postId}`,
      text: 'webhook hello',
      conversation: { threadId: postId },
    });
  });

  it("X8 a trigger_id naming another platform's command id yields an id in the Mattermost namespace, so it cannot claim that id first", async () => {
    const channelId = channel();
    const slackId = `slack:T0000:C0000:${Date.now()}.000100`;
    const response = await fetch(`${binding.url}/mattermost/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: slashCommandBody({
        token: token(),
        teamId: team,
        channelId,
        userId: alice.id,
        text: 'claiming',
        triggerId: slackId,
      }).toString(),
    });
    expect(response.status).toBe(200);
    const published = await waitFor('the command', () =>
      binding.commands.find((c) => c.command.conversation.channelId === channelId),
    );
    expect(published.command.id).toBe(`mattermost:${slackId}`);
  });

  it('refuses a command without the token', async () => {
    const response = await fetch(`${binding.url}/mattermost/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'team_id=t&channel_id=c&user_id=u&text=hi&trigger_id=x',
    });
    expect(response.status).toBe(401);
  });

  it('refuses a click without a signed context, and one signed for a prompt it never showed', async () => {
    const unsigned = await fetch(`${binding.url}/mattermost/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        actionCallbackBody({
          userId: alice.id,
          channelId: channel(),
          postId: 'p',
          context: { sessionId: 's', callId: 'c', optionKey: 'deny' },
        }),
      ),
    });
    expect(unsigned.status).toBe(401);

    // Signed, but for a prompt this binding never showed: its journal holds no such nonce.
    const fields = {
      sessionId: 'mattermost-nosuch',
      callId: 'call_x',
      optionKey: 'deny',
      nonce: '0123456789abcdef0123456789abcdef',
    };
    const secret = driver.bindingEnv().MATTERMOST_ACTION_SECRET;
    const unknown = await fetch(`${binding.url}/mattermost/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        actionCallbackBody({
          userId: alice.id,
          channelId: channel(),
          postId: 'p',
          context: { ...fields, sig: signAction(secret, fields) },
        }),
      ),
    });
    expect(unknown.status).toBe(401);
    expect(binding.commands.filter((c) => c.command.sessionId === fields.sessionId)).toEqual([]);
  });
});
