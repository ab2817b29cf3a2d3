import type { Command, Conversation, ToolInteractionRequest } from '@tollgate/protocol';
import {
  actionCallbackBody,
  outgoingWebhookBody,
  slashCommandBody,
} from '@tollgate/platform-standins';
import { SLASH_ANSWER_HINT } from '../../apps/mattermost-binding/src/inbound/mattermost-commands.controller';
import { MattermostDriver } from '../contract/drivers/mattermost.driver';
import type { ChatMessageView } from '../contract/platform-driver';
import { BindingFixture } from '../support/binding.fixture';
import { alice, bob } from '../support/commands';
import { requestOutput } from '../support/outputs';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

const TRIGGER = '@tollgate';
/** The membership answer's longest life (X13), and the margin a loaded machine needs. */
const MEMBERSHIP_TTL_MS = 5_000;
const MEMBERSHIP_MARGIN_MS = 3_000;

/**
 * X13 (issue 19): with the command token, `/mattermost/commands` took `user_id` from the body,
 * so `text=always` as the requester approved and made a standing grant, past every check a
 * click gets. Now an answer word counts only from a post the server shows, written by the
 * sender in that channel and thread with that text, from a current member of the channel, and
 * the approver is named as the server names them. Each attack below holds the real command
 * token and must publish no answer: the command stream is watched with a core subscription,
 * and a message sent afterwards in the same conversation is the last word.
 */
describe('X13 — Mattermost typed answers are verified against the server (process)', () => {
  const driver = new MattermostDriver();
  let binding: BindingFixture;
  let token: string;

  beforeAll(async () => {
    await driver.start();
    binding = await BindingFixture.create('mattermost-binding', 'mmtyped', () =>
      driver.bindingEnv(),
    );
    token = driver.bindingEnv().MATTERMOST_COMMAND_TOKEN;
  });

  afterAll(async () => {
    await binding?.dispose();
    await driver.stop();
  });

  interface Shown {
    readonly conversation: Conversation;
    readonly request: ToolInteractionRequest;
    readonly message: ChatMessageView;
  }

  async function shownPrompt(label: string): Promise<Shown> {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, `call_x13_${label}`, 5, {
      options: [
        { key: 'approve_once', label: 'Approve once', style: 'primary' },
        { key: 'approve_always', label: 'Always allow', style: 'default' },
        { key: 'deny', label: 'Deny', style: 'danger' },
      ],
    });
    await binding.publish(request);
    const message = await waitFor(`the prompt ${label}`, () =>
      driver
        .messagesIn(conversation)
        .find((m) => m.buttons.length > 0 && m.text.includes(request.callId)),
    );
    await waitFor(`the journal to track ${request.callId}`, async () =>
      (await binding.journal()).some((row) => row.call_id === request.callId),
    );
    return { conversation, request, message };
  }

  function command(form: URLSearchParams): Promise<Response> {
    return fetch(`${binding.url}/mattermost/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
  }

  /** A reply a person really wrote in the thread, and the webhook Mattermost sends for it. */
  function webhookFor(
    conversation: Conversation,
    post: { author: string; text: string; channelId?: string; rootId?: string; props?: object },
    claimed: { userId?: string; userName?: string; text?: string } = {},
  ): URLSearchParams {
    const postId = driver.fake.addUserPost({
      channel_id: post.channelId ?? conversation.channelId,
      user_id: post.author,
      message: `${TRIGGER} ${post.text}`,
      root_id: post.rootId ?? conversation.threadId,
      ...(post.props ? { props: post.props as Record<string, unknown> } : {}),
    });
    return outgoingWebhookBody({
      token,
      teamId: conversation.workspaceId,
      channelId: conversation.channelId,
      userId: claimed.userId ?? post.author,
      userName: claimed.userName ?? claimed.userId ?? post.author,
      postId,
      text: claimed.text ?? post.text,
      triggerWord: TRIGGER,
      rootId: conversation.threadId,
    });
  }

  function commandsOf(shown: Shown): Command[] {
    return binding.commands
      .filter((c) => c.command.sessionId === shown.request.sessionId)
      .map((c) => c.command);
  }

  /** No answer reached the command stream for the session, up to a message sent now. */
  async function expectNoAnswer(shown: Shown): Promise<void> {
    const text = `sentinel ${uniqueToken('')}`;
    expect((await driver.say(binding.url, shown.conversation, text, alice)).status).toBe(200);
    await waitFor('the sentinel message on the command stream', () =>
      commandsOf(shown).some((c) => c.type === 'UserMessage' && c.text === text),
    );
    expect(commandsOf(shown).filter((c) => c.type === 'ToolInteractionResponse')).toEqual([]);
    const prompt = driver.messagesIn(shown.conversation).find((m) => m.buttons.length > 0);
    expect(prompt?.messageId).toBe(shown.message.messageId);
  }

  it('X13 a slash command that is only an answer word, as the requester, is a private hint: no answer, no message, the prompt stays pending', async () => {
    const shown = await shownPrompt('slash');
    for (const text of ['always', 'approve', 'allow here']) {
      const response = await command(
        slashCommandBody({
          token,
          teamId: shown.conversation.workspaceId,
          channelId: shown.conversation.channelId,
          userId: alice.id,
          text,
          rootId: shown.conversation.threadId,
        }),
      );
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        response_type: 'ephemeral',
        text: SLASH_ANSWER_HINT,
      });
    }
    await expectNoAnswer(shown);
    expect(commandsOf(shown).filter((c) => c.type === 'UserMessage')).toHaveLength(1);
  });

  it('X13 an outgoing webhook whose post is not what it claims gets 401 with the reason and publishes nothing', async () => {
    const shown = await shownPrompt('forged');
    const other = driver.freshConversation();
    const attempts: Array<[string, URLSearchParams]> = [
      // Bob wrote it; the request says Alice did.
      [
        'wrong_author',
        webhookFor(shown.conversation, { author: bob.id, text: 'always' }, { userId: alice.id }),
      ],
      // Posted by an incoming webhook under Alice's id.
      [
        'wrong_author',
        webhookFor(shown.conversation, {
          author: alice.id,
          text: 'always',
          props: { from_webhook: 'true' },
        }),
      ],
      // Alice wrote something else; the request says "always".
      [
        'wrong_text',
        webhookFor(shown.conversation, { author: alice.id, text: 'hello' }, { text: 'always' }),
      ],
      // Alice's "always" was written in another channel.
      [
        'wrong_channel',
        webhookFor(shown.conversation, {
          author: alice.id,
          text: 'always',
          channelId: other.channelId,
          rootId: other.threadId,
        }),
      ],
      // In the channel, but in another thread.
      [
        'wrong_thread',
        webhookFor(shown.conversation, {
          author: alice.id,
          text: 'always',
          rootId: other.threadId,
        }),
      ],
    ];
    const missing = outgoingWebhookBody({
      token,
      teamId: shown.conversation.workspaceId,
      channelId: shown.conversation.channelId,
      userId: alice.id,
      postId: 'nosuchpost000000000000000a',
      text: 'always',
      triggerWord: TRIGGER,
      rootId: shown.conversation.threadId,
    });
    attempts.push(['unknown_post', missing]);
    const traversal = new URLSearchParams(missing);
    traversal.set('post_id', '../users/me');
    attempts.push(['no_post', traversal]);
    for (const [reason, form] of attempts) {
      const response = await command(form);
      expect({ reason, status: response.status, body: await response.json() }).toMatchObject({
        status: 401,
        body: { reason },
      });
    }
    await expectNoAnswer(shown);
  });

  it('X13 a real reply in the thread answers, and the approver is named as the server names them, never as the body says', async () => {
    const shown = await shownPrompt('genuine');
    const response = await command(
      webhookFor(shown.conversation, { author: alice.id, text: 'always' }, { userName: 'the-ceo' }),
    );
    expect(response.status).toBe(200);
    const answer = await waitFor('the typed answer on the command stream', () =>
      commandsOf(shown).find((c) => c.type === 'ToolInteractionResponse'),
    );
    expect(answer).toMatchObject({
      callId: shown.request.callId,
      optionKey: 'approve_always',
      sender: { id: alice.id, displayName: alice.displayName },
    });

    // A click is named the same way: the callback's user_name is not the server's word.
    const clicked = await shownPrompt('click-name');
    const button = clicked.message.buttons.find((b) => b.label === 'Approve once')!;
    const click = await fetch(`${binding.url}/mattermost/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        actionCallbackBody({
          userId: alice.id,
          userName: 'the-ceo',
          channelId: clicked.message.channelId,
          postId: clicked.message.messageId,
          context: driver.capturedContext(button),
        }),
      ),
    });
    expect(click.status).toBe(200);
    const clickAnswer = await waitFor('the click on the command stream', () =>
      commandsOf(clicked).find((c) => c.type === 'ToolInteractionResponse'),
    );
    expect(clickAnswer).toMatchObject({ sender: { id: alice.id, displayName: alice.displayName } });
  });

  it('X13 someone removed from the channel stops answering within 5 s: membership is asked again on every answer', async () => {
    const shown = await shownPrompt('removed');
    const { channelId } = shown.conversation;
    // Bob is a member now: his answer word is checked and (not his prompt) only hinted at.
    const first = await command(webhookFor(shown.conversation, { author: bob.id, text: 'yes' }));
    expect(first.status).toBe(200);
    driver.fake.removeChannelMember(channelId, bob.id);
    const removedAt = Date.now();
    const refused = await waitFor(
      'a removed member to be refused',
      async () => {
        const response = await command(
          webhookFor(shown.conversation, { author: bob.id, text: 'yes' }),
        );
        return response.status === 401 ? ((await response.json()) as { reason: string }) : false;
      },
      { timeoutMs: MEMBERSHIP_TTL_MS + MEMBERSHIP_MARGIN_MS, intervalMs: 200 },
    );
    console.log(`X13: a removed member was refused ${Date.now() - removedAt} ms after removal`);
    expect(refused).toEqual({ reason: 'not_a_member' });
    await expectNoAnswer(shown);
    // Alice removed too: the requester herself cannot answer once she is out.
    driver.fake.removeChannelMember(channelId, alice.id);
    const hers = await command(
      webhookFor(shown.conversation, { author: alice.id, text: 'approve' }),
    );
    expect(hers.status).toBe(401);
    await expect(hers.json()).resolves.toEqual({ reason: 'not_a_member' });
  });
});
