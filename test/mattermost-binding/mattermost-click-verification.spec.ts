import type { Conversation, ToolInteractionRequest } from '@tollgate/protocol';
import { signAction } from '../../apps/mattermost-binding/src/inbound/action-signature';
import { MattermostDriver } from '../contract/drivers/mattermost.driver';
import type { ChatMessageView } from '../contract/platform-driver';
import { actionCallbackBody, otherNonce, tamperedContext } from '@tollgate/platform-standins';
import { BindingFixture } from '../support/binding.fixture';
import { alice, bob } from '../support/commands';
import { requestOutput, resolvedOutput, updateOutput } from '../support/outputs';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

/** Someone with an account who is in none of the test channels. */
const MALLORY = { id: 'mallory0000000000000000000', displayName: 'mallory' };

/**
 * X3 (docs/protocol.md §5, revised 2026-11-30): a Mattermost click is believed only with a valid
 * sig over the post's nonce, on the post the journal tracks for that prompt, in its channel,
 * from a member of that channel. Each attack below starts from a context captured from a real
 * button (what Mattermost sends back, nonce and sig included) and must publish nothing: the
 * command stream is watched with a core subscription, and a message sent afterwards in the
 * same conversation is the last word (anything the refused click had published would arrive
 * before it).
 */
describe('X3 — Mattermost clicks are bound to their post, channel and channel members (process)', () => {
  const driver = new MattermostDriver();
  let binding: BindingFixture;

  beforeAll(async () => {
    await driver.start();
    binding = await BindingFixture.create('mattermost-binding', 'mmclicks', () =>
      driver.bindingEnv(),
    );
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

  async function shownPrompt(label: string, conversation = driver.freshConversation()) {
    const request = requestOutput(conversation, `call_x3_${label}`, 5);
    await binding.publish(request);
    const message = await waitFor(`the prompt ${label}`, () =>
      driver
        .messagesIn(conversation)
        .find((m) => m.buttons.length > 0 && m.text.includes(request.callId)),
    );
    await postJournaled(request);
    return { conversation, request, message } satisfies Shown;
  }

  /**
   * Waits until the binding has journaled the prompt's post: it records the post (and the nonce
   * its buttons carry) once the platform answered, a moment after the message is visible, and
   * only a journaled post is answerable. A person cannot click within that moment; a test can.
   */
  async function postJournaled(prompt: { sessionId: string; callId: string }) {
    await waitFor(`the journal to track ${prompt.callId}`, async () =>
      (await binding.journal()).some(
        (row) => row.session_id === prompt.sessionId && row.call_id === prompt.callId,
      )
        ? true
        : undefined,
    );
  }

  function approve(shown: Shown) {
    return shown.message.buttons.find((b) => b.label === 'Approve once')!;
  }

  /** A request to the actions endpoint exactly as given: what replaying a capture looks like. */
  function replay(body: Record<string, unknown>): Promise<Response> {
    return fetch(`${binding.url}/mattermost/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  function callbackFor(
    shown: Shown,
    overrides: { context?: Record<string, unknown>; postId?: string; channelId?: string } = {},
    clicker: { id: string; displayName?: string } = bob,
  ) {
    return actionCallbackBody({
      userId: clicker.id,
      ...(clicker.displayName ? { userName: clicker.displayName } : {}),
      channelId: overrides.channelId ?? shown.message.channelId,
      postId: overrides.postId ?? shown.message.messageId,
      context: overrides.context ?? driver.capturedContext(approve(shown)),
    });
  }

  /**
   * What the session's people sent through the binding: the binding's own report of each post
   * (G4 ToolInteractionShown) is neither an answer nor something a refused click published.
   */
  function answersFor(sessionId: string) {
    return binding.commands.filter(
      (c) => c.command.sessionId === sessionId && c.command.type !== 'ToolInteractionShown',
    );
  }

  /** Nothing reached the command stream for the session, up to a message sent now. */
  async function expectNothingPublished(shown: Shown): Promise<void> {
    const text = `sentinel ${uniqueToken('')}`;
    expect((await driver.say(binding.url, shown.conversation, text, alice)).status).toBe(200);
    const published = await waitFor('the sentinel message on the command stream', () => {
      const found = answersFor(shown.request.sessionId);
      return found.some((c) => c.command.type === 'UserMessage' && c.command.text === text)
        ? found
        : undefined;
    });
    expect(published.map((c) => c.command.type)).toEqual(['UserMessage']);
  }

  async function expectUnauthorized(response: Response): Promise<void> {
    expect(response.status).toBe(401);
  }

  it('X3 a genuine click on the journaled post, by a member, is forwarded once (the control)', async () => {
    const shown = await shownPrompt('control');
    const context = driver.capturedContext(approve(shown));
    expect(context).toMatchObject({
      sessionId: shown.request.sessionId,
      callId: shown.request.callId,
      optionKey: 'approve_once',
      nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
      sig: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const response = await driver.click(binding.url, shown.message, approve(shown), bob);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    const [published] = await waitFor('the response', () => {
      const found = answersFor(shown.request.sessionId);
      return found.length > 0 ? found : undefined;
    });
    expect(published.command).toMatchObject({
      type: 'ToolInteractionResponse',
      callId: shown.request.callId,
      optionKey: 'approve_once',
      sender: { id: bob.id },
      promptRef: shown.message.messageId,
    });
  });

  it('X3 every post of a prompt gets its own nonce, kept while it is edited in place', async () => {
    const first = await shownPrompt('nonces1');
    const second = await shownPrompt('nonces2');
    const nonceOf = (shown: Shown) => driver.capturedContext(approve(shown)).nonce;
    expect(nonceOf(first)).not.toBe(nonceOf(second));
    const stored = driver.fake.post(first.message.messageId)!;
    const nonces = new Set(
      (stored.props.attachments ?? []).flatMap((a) =>
        (a.actions ?? []).map((action) => action.integration?.context?.nonce),
      ),
    );
    expect([...nonces]).toEqual([nonceOf(first)]);
  });

  it('X3 a prompt re-posted from a refresh the journal had no record of answers clicks: its nonce is journaled', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_x3_reposted', 5);
    await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 9));
    const message = await waitFor('the re-posted prompt', () =>
      driver.messagesIn(conversation).find((m) => m.buttons.length > 0),
    );
    await postJournaled(request);
    const shown: Shown = { conversation, request, message };
    expect((await driver.click(binding.url, message, approve(shown), alice)).status).toBe(200);
    await waitFor('the response', () =>
      binding.commands.find(
        (c) =>
          c.command.sessionId === request.sessionId && c.command.type === 'ToolInteractionResponse',
      ),
    );
  });

  it('X3 a captured context replayed on another post gets 401 and publishes nothing', async () => {
    const captured = await shownPrompt('otherpost');
    const other = await shownPrompt('otherpost2');
    // The other post is a live prompt in a channel the clicker is in: only the binding's own
    // record of which post carries which nonce can tell.
    await expectUnauthorized(
      await replay(
        callbackFor(captured, {
          postId: other.message.messageId,
          channelId: other.message.channelId,
        }),
      ),
    );
    await expectNothingPublished(captured);
    await expectNothingPublished(other);
  });

  it('X3 a captured context replayed in another channel gets 401 and publishes nothing', async () => {
    const captured = await shownPrompt('otherchannel');
    const elsewhere = driver.freshConversation();
    driver.fake.addChannelMembers(elsewhere.channelId, [MALLORY.id]);
    await expectUnauthorized(
      await replay(callbackFor(captured, { channelId: elsewhere.channelId }, MALLORY)),
    );
    expect(driver.fake.callsTo('getChannelMember')).not.toContainEqual(
      expect.objectContaining({ channel: elsewhere.channelId }),
    );
    await expectNothingPublished(captured);
  });

  it('X3 a captured context replayed after the prompt was cleared is told it expired, publishes nothing, and the post has no buttons', async () => {
    const captured = await shownPrompt('cleared');
    const context = driver.capturedContext(approve(captured));
    await binding.publish(resolvedOutput(captured.request, 7, alice));
    const cleared = await waitFor('the resolved prompt', () =>
      driver.messagesIn(captured.conversation).find((m) => m.edits > 0),
    );
    expect(cleared.buttons).toEqual([]);
    await waitFor('the journal to clear the prompt', async () =>
      (await binding.journal()).some(
        (row) =>
          row.session_id === captured.request.sessionId &&
          row.type === 'PendingApprovalPromptCleared',
      ),
    );
    const response = await replay(callbackFor(captured, { context }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      ephemeral_text: expect.stringMatching(/no longer valid/),
    });
    await expectNothingPublished(captured);
    expect(driver.messagesIn(captured.conversation)[0].buttons).toEqual([]);
  });

  it('X3 a tampered nonce gets 401 and publishes nothing, whether or not it is signed again', async () => {
    const captured = await shownPrompt('nonce');
    const context = driver.capturedContext(approve(captured));
    await expectUnauthorized(
      await replay(callbackFor(captured, { context: tamperedContext(context, 'nonce') })),
    );
    // Even someone holding the action secret cannot answer with a nonce the journal lacks.
    const fields = {
      sessionId: String(context.sessionId),
      callId: String(context.callId),
      optionKey: String(context.optionKey),
      nonce: otherNonce(context.nonce),
    };
    const resigned = {
      ...fields,
      sig: signAction(driver.bindingEnv().MATTERMOST_ACTION_SECRET, fields),
    };
    await expectUnauthorized(await replay(callbackFor(captured, { context: resigned })));
    await expectNothingPublished(captured);
  });

  it('X19 a correctly signed context whose ids hold a NUL or a lone surrogate gets 401 invalid_context and publishes nothing', async () => {
    const captured = await shownPrompt('unstorable');
    const context = driver.capturedContext(approve(captured));
    const secret = driver.bindingEnv().MATTERMOST_ACTION_SECRET;
    for (const change of [
      { callId: `${String(context.callId)}\u0000` },
      { sessionId: `${String(context.sessionId)}\ud800` },
    ]) {
      const fields = {
        sessionId: String(context.sessionId),
        callId: String(context.callId),
        optionKey: String(context.optionKey),
        nonce: String(context.nonce),
        ...change,
      };
      const response = await replay(
        callbackFor(captured, { context: { ...fields, sig: signAction(secret, fields) } }),
      );
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ reason: 'invalid_context' });
    }
    await expectNothingPublished(captured);
  });

  it('X3 a click by someone not in the channel is told so privately and publishes nothing', async () => {
    const shown = await shownPrompt('nonmember');
    const response = await driver.click(binding.url, shown.message, approve(shown), MALLORY);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      ephemeral_text: expect.stringMatching(/Only members of this channel/),
    });
    expect(driver.notices()).toContainEqual({
      userId: MALLORY.id,
      text: expect.stringMatching(/Only members of this channel/),
    });
    await expectNothingPublished(shown);
  });

  it('X3 a captured context with a user_id swapped in is checked for that user, in the post’s channel, and publishes nothing', async () => {
    const shown = await shownPrompt('swapped');
    const asked = driver.fake.callsTo('getChannelMember').length;
    const response = await replay(callbackFor(shown, {}, MALLORY));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      ephemeral_text: expect.stringMatching(/Only members of this channel/),
    });
    expect(driver.fake.callsTo('getChannelMember').slice(asked)).toEqual([
      expect.objectContaining({
        path: `/api/v4/channels/${shown.message.channelId}/members/${MALLORY.id}`,
      }),
    ]);
    // A user id that would change the lookup's path is refused before any lookup.
    const traversal = await replay(callbackFor(shown, {}, { id: '../../users/me' }));
    expect(traversal.status).toBe(401);
    expect(driver.fake.callsTo('getChannelMember').length).toBe(asked + 1);
    await expectNothingPublished(shown);
  });
});
