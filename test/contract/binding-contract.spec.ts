import type { Platform, ToolInteractionResponse } from '@tollgate/protocol';
import { alice, bob } from '../support/commands';
import { BindingFixture } from '../support/binding.fixture';
import {
  rejectedOutput,
  requestOutput,
  resolvedOutput,
  textOutput,
  updateOutput,
} from '../support/outputs';
import { waitFor } from '../support/wait-for';
import { CONTRACT_DRIVERS } from './drivers';
import type { ChatMessageView, PlatformDriver } from './platform-driver';

/**
 * The binding contract (SCENARIOS.md B1–B15), written once and run against each binding
 * service: the real binding process, outputs published on NATS, signed inbound requests,
 * assertions on the platform's fake API and on the commands published.
 */
const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];

describe.each(platforms)('%s binding contract', (platform) => {
  let driver: PlatformDriver;
  let binding: BindingFixture;

  beforeAll(async () => {
    driver = CONTRACT_DRIVERS[platform]!();
    await driver.start();
    binding = await BindingFixture.create(`${platform}-binding`, `contract${platform}`, () =>
      driver.bindingEnv(),
    );
  });

  afterAll(async () => {
    await binding?.dispose();
    await driver?.stop();
  });

  /** The one message the conversation shows once `predicate` holds. */
  async function promptIn(
    conversation: ReturnType<PlatformDriver['freshConversation']>,
    what: string,
    predicate: (m: ChatMessageView) => boolean = () => true,
  ): Promise<ChatMessageView> {
    return waitFor(what, () => {
      const messages = driver.messagesIn(conversation);
      const [message] = messages;
      if (messages.length > 1) throw new Error(`${messages.length} messages posted`);
      return message && predicate(message) ? message : undefined;
    });
  }

  async function journalFor(callId: string) {
    return (await binding.journal()).filter((row) => row.call_id === callId);
  }

  /** Publishes a marker text and waits for it: everything published before was handled. */
  async function settle(
    conversation: ReturnType<PlatformDriver['freshConversation']>,
    seq: number,
  ) {
    const marker = `marker ${seq}`;
    await binding.publish(textOutput(conversation, seq, marker));
    await waitFor(`the marker text ${seq}`, () =>
      driver.messagesIn(conversation).some((m) => m.text.includes(marker)) ? true : undefined,
    );
  }

  it('B1 a request posts one message with a button per option and journals it as tracked', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_2_1', 5);
    await binding.publish(request);
    const message = await promptIn(conversation, 'the prompt');
    expect(message.buttons.map((b) => [b.label, b.style])).toEqual([
      ['Approve once', 'primary'],
      ['Allow in this chat', 'default'],
      ['Always allow', 'default'],
      ['Deny', 'danger'],
    ]);
    expect(message.text).toContain('write_note');
    expect(message.text).toContain('call_2_1');
    const journal = await waitFor('the tracked event', async () => {
      const rows = await journalFor('call_2_1');
      return rows.length > 0 ? rows : undefined;
    });
    expect(journal.map((r) => r.type)).toEqual(['PendingApprovalPromptTracked']);
    expect(JSON.stringify(journal[0].data)).toContain(message.messageId);
  });

  it('B2 a signed click publishes one response with the clicker and option, and edits nothing', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b2', 5);
    await binding.publish(request);
    const message = await promptIn(conversation, 'the prompt');
    const deny = message.buttons.find((b) => b.label === 'Deny')!;
    const response = await driver.click(binding.url, message, deny, bob);
    expect(response.status).toBe(200);
    const [published] = await waitFor('the response command', () => {
      const found = binding.commands.filter((c) => c.command.sessionId === request.sessionId);
      return found.length > 0 ? found : undefined;
    });
    expect(published.subject).toBe(`${binding.prefix}.cmd.${request.sessionId}.response`);
    const command = published.command as ToolInteractionResponse;
    expect(command).toMatchObject({
      type: 'ToolInteractionResponse',
      callId: 'call_b2',
      optionKey: 'deny',
      sender: { id: bob.id },
      conversation,
    });
    await settle(conversation, 6);
    expect(
      driver.messagesIn(conversation).find((m) => m.messageId === message.messageId)!.edits,
    ).toBe(0);
  });

  it('B3 resolved edits once: the label and who, controls removed, journal cleared', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b3', 5);
    await binding.publish(request);
    await promptIn(conversation, 'the prompt');
    await binding.publish(resolvedOutput(request, 7, bob));
    const edited = await promptIn(conversation, 'the resolved prompt', (m) => m.edits > 0);
    expect(edited.edits).toBe(1);
    expect(edited.buttons).toHaveLength(0);
    expect(edited.text).toContain('Approve once');
    expect(edited.text).toMatch(new RegExp(`${bob.id}|${bob.displayName}`));
    const types = (await journalFor('call_b3')).map((r) => r.type);
    expect(types).toEqual(['PendingApprovalPromptTracked', 'PendingApprovalPromptCleared']);
  });

  it.each([
    ['Abandoned', 'superseded'],
    ['Expired', 'expired'],
  ] as const)(
    'B4 %s edits once with controls removed and a banner; later outputs change nothing',
    async (status, banner) => {
      const conversation = driver.freshConversation();
      const request = requestOutput(conversation, `call_b4_${status}`, 5);
      await binding.publish(request);
      await promptIn(conversation, 'the prompt');
      await binding.publish(updateOutput(request, status, 8));
      const edited = await promptIn(conversation, 'the banner', (m) => m.edits > 0);
      expect(edited.buttons).toHaveLength(0);
      expect(edited.text.toLowerCase()).toContain(banner);
      expect((await journalFor(request.callId)).at(-1)!.type).toBe('PendingApprovalPromptCleared');

      await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 9));
      await binding.publish(resolvedOutput(request, 10));
      await settle(conversation, 11);
      const after = driver.messagesIn(conversation).find((m) => m.messageId === edited.messageId)!;
      expect(after.edits).toBe(1);
      expect(after.buttons).toHaveLength(0);
    },
  );

  it('B5 a refresh edits in place, keeps the controls and says it is still valid', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b5', 5);
    await binding.publish(request);
    const posted = await promptIn(conversation, 'the prompt');
    await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 9));
    const refreshed = await promptIn(conversation, 'the refresh', (m) => m.edits > 0);
    expect(refreshed.messageId).toBe(posted.messageId);
    expect(refreshed.buttons.map((b) => b.label)).toEqual(posted.buttons.map((b) => b.label));
    expect(refreshed.text).toMatch(/still valid/i);
    expect(refreshed.text).toMatch(/restart/i);
    const types = (await journalFor('call_b5')).map((r) => r.type);
    expect(types).toEqual(['PendingApprovalPromptTracked', 'PendingApprovalPromptRefreshed']);
  });

  it('B6 after a cold start of the binding, a refresh edits the persisted message', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b6', 5);
    await binding.publish(request);
    const posted = await promptIn(conversation, 'the prompt');
    await binding.stop();
    await binding.start();
    await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 9));
    const refreshed = await promptIn(conversation, 'the refresh', (m) => m.edits > 0);
    expect(refreshed.messageId).toBe(posted.messageId);
    expect(refreshed.buttons.length).toBeGreaterThan(0);
  });

  it('B7 a refresh with no record posts a fresh interactive prompt once', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b7', 5);
    const before = driver.postCount();
    await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 9));
    const posted = await promptIn(conversation, 'the re-posted prompt');
    expect(posted.buttons.map((b) => b.label)).toContain('Approve once');
    await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 9), 'same-refresh-again');
    await settle(conversation, 12);
    expect(driver.messagesIn(conversation).filter((m) => m.buttons.length > 0)).toHaveLength(1);
    expect(driver.postCount() - before).toBe(2); // the prompt and the marker
  });

  it('B8 an abandon that arrives before its request means nothing live is ever shown', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b8', 5);
    await binding.publish(updateOutput(request, 'Abandoned', 8));
    await binding.publish(request);
    await settle(conversation, 9);
    expect(driver.messagesIn(conversation).filter((m) => m.buttons.length > 0)).toHaveLength(0);
  });

  it('B9 duplicates and stale seq are dropped; a redelivered text is posted once', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b9', 5);
    await binding.publish(request);
    await promptIn(conversation, 'the prompt');
    await binding.publish(request, `${request.id}-redelivered`);
    await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 9));
    await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 9), 'refresh-again');
    await binding.publish(updateOutput(request, 'RefreshedAfterRestart', 7), 'stale-refresh');
    const reply = textOutput(conversation, 10, 'the reply');
    await binding.publish(reply);
    await binding.publish(reply, `${reply.id}-redelivered`);
    await settle(conversation, 11);
    const messages = driver.messagesIn(conversation);
    expect(messages.filter((m) => m.buttons.length > 0)).toHaveLength(1);
    expect(messages.find((m) => m.buttons.length > 0)!.edits).toBe(1);
    expect(messages.filter((m) => m.text.includes('the reply'))).toHaveLength(1);
  });

  it.each(['forged', 'stale'] as const)(
    'B10 a %s signature gets 401 and publishes nothing',
    async (signing) => {
      const conversation = driver.freshConversation();
      const request = requestOutput(conversation, `call_b10_${signing}`, 5);
      await binding.publish(request);
      const message = await promptIn(conversation, 'the prompt');
      const click = await driver.click(binding.url, message, message.buttons[0], alice, signing);
      expect(click.status).toBe(401);
      const say = await driver.say(binding.url, conversation, 'hello', alice, signing);
      expect(say.status).toBe(401);
      // A valid request afterwards is published: the refusal above was the signature's doing.
      await driver.say(binding.url, conversation, 'valid hello', alice);
      await waitFor('the valid message', () =>
        binding.commands.some((c) => c.command.sessionId === request.sessionId) ? true : undefined,
      );
      const published = binding.commands.filter((c) => c.command.sessionId === request.sessionId);
      expect(published).toHaveLength(1);
      expect(published[0].command).toMatchObject({ type: 'UserMessage', text: 'valid hello' });
    },
  );

  it('B11 a rejection is a private notice to the clicker only; the prompt is unchanged', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b11', 5);
    await binding.publish(request);
    const posted = await promptIn(conversation, 'the prompt');
    // A wrong-requester refusal is journaled by the session, so it carries a seq.
    await binding.publish(rejectedOutput(request, 6, bob));
    await waitFor('the notice', () =>
      driver.notices().some((n) => n.userId === bob.id && n.text.includes('Only the person'))
        ? true
        : undefined,
    );
    await settle(conversation, 7);
    expect(
      driver.notices().filter((n) => n.text.includes('Only the person') && n.userId !== bob.id),
    ).toHaveLength(0);
    const after = driver.messagesIn(conversation).find((m) => m.messageId === posted.messageId)!;
    expect(after.edits).toBe(0);
    expect(after.buttons).toHaveLength(posted.buttons.length);
  });

  it('B15 malformed payloads and unknown versions are dead-lettered with a reason; consumption goes on', async () => {
    const conversation = driver.freshConversation();
    const request = requestOutput(conversation, 'call_b15', 5);
    const subject = `${binding.prefix}.out.${platform}.${request.sessionId}.call.call_b15.request`;
    await binding.publishRaw(subject, '{not json', 'b15-garbage');
    await binding.publishRaw(subject, JSON.stringify({ ...request, v: 2 }), 'b15-v2');
    await binding.publish(request);
    await promptIn(conversation, 'the prompt after the bad ones');
    const letters = await waitFor('two dead letters', async () => {
      const found = (await binding.deadLetters()).filter((l) => l.originalSubject === subject);
      return found.length >= 2 ? found : undefined;
    });
    expect(letters.map((l) => l.reason)).toEqual([
      expect.stringContaining('invalid_json'),
      expect.stringContaining('unknown_version'),
    ]);
    expect(letters.every((l) => l.subject === `${binding.prefix}.dlq.${platform}-binding`)).toBe(
      true,
    );
    await waitFor('nothing left pending', async () => {
      const state = await binding.consumerState();
      return state.ackPending === 0 && state.pending === 0 ? true : undefined;
    });
  });
});
