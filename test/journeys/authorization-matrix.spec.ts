import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Conversation,
  deriveSessionId,
  type Person,
  type Platform,
  type ToolInteractionRequest,
} from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { MattermostDriver } from '../contract/drivers/mattermost.driver';
import type { ChatButton, ChatMessageView, PlatformDriver } from '../contract/platform-driver';
import type { BindingFixture } from '../support/binding.fixture';
import { alice, bob, freshConversation, userMessage } from '../support/commands';
import type { SessionServiceFixture } from '../support/session-service.fixture';
import { startJourneySystem, type JourneySystem } from '../support/journey-system.fixture';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

/**
 * X7 — the authorization matrix, one named test per row, through chat on each platform with
 * the session service and the binding running as real processes on one prefix. Every refused
 * click gets a private notice where the platform has one and runs nothing: the session's
 * journal shows no approval and no execution, and the prompt keeps its buttons.
 *
 * The policy offers `write_note` with two options only, so a third is "an option the prompt
 * did not offer" although the standard option set knows it.
 *
 * An automation prompt answered by a non-member is a row on Mattermost only. Mattermost signs
 * nothing it sends a binding, so the binding itself must ask the server whether the clicker
 * is in the channel (docs/protocol.md §5). Slack and Discord cannot tell a non-member's click
 * apart because they never deliver one: a button click reaches the binding signed by the
 * platform, user included, and only from someone the platform showed the message to, i.e.
 * someone who can read the channel (a Discord DM has only its two people). The binding has no
 * further notion of membership to check there.
 */
const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];

const POLICY = `tools:
  echo: { mode: auto }
  write_note: { mode: approval, options: [approve_once, deny] }
`;

const NOT_REQUESTER = 'Only the person who asked can answer this request.';
const NOT_OFFERED = 'That option is not offered for this request.';
const NO_LONGER_VALID = 'This request is no longer valid; nothing was run.';
const NOT_A_MEMBER = /Only members of this channel/;
/** Someone with an account who is in none of the test channels. */
const MALLORY: Person = { id: 'mallory0000000000000000000', displayName: 'mallory' };

describe.each(platforms)('X7 — the authorization matrix on %s', (platform) => {
  let driver: PlatformDriver;
  let session: SessionServiceFixture;
  let binding: BindingFixture;
  const policyFile = join(tmpdir(), `${uniqueToken('x7policy')}.yaml`);

  let system: JourneySystem | undefined;

  beforeAll(async () => {
    writeFileSync(policyFile, POLICY);
    system = await startJourneySystem(platform, 'x7', { TOOL_POLICY_FILE: policyFile });
    ({ driver, session, binding } = system);
  });

  afterAll(async () => {
    await system?.dispose();
    rmSync(policyFile, { force: true });
  });

  /** Alice asks for a gated tool through chat; the prompt she gets. */
  async function askedByAlice(text: string) {
    const conversation = driver.freshConversation();
    const response = await driver.say(
      binding.url,
      conversation,
      `!write_note {"text":"${text}"}`,
      alice,
    );
    expect(response.status).toBe(200);
    const prompt = await promptIn(conversation);
    return { conversation, sessionId: deriveSessionId(conversation), prompt };
  }

  /**
   * The prompt as a person sees it, once the binding has journaled it: the platform shows a
   * post a moment before the binding records it, and only a journaled prompt can be answered
   * (a Mattermost click is checked against the journaled nonce).
   */
  async function promptIn(conversation: Conversation): Promise<ChatMessageView> {
    const prompt = await waitFor('the prompt with buttons', () =>
      driver.messagesIn(conversation).find((m) => m.buttons.length > 0),
    );
    await binding.postJournaled(prompt.messageId);
    return prompt;
  }

  function button(prompt: ChatMessageView, label: string): ChatButton {
    const found = prompt.buttons.find((b) => b.label === label);
    if (!found) throw new Error(`no ${label} button on ${JSON.stringify(prompt.buttons)}`);
    return found;
  }

  function noticeTo(person: Person, text: string | RegExp, after: number) {
    return waitFor(`a private notice to ${person.id}: ${String(text)}`, () =>
      driver
        .notices()
        .slice(after)
        .find(
          (n) =>
            n.userId === person.id &&
            (typeof text === 'string' ? n.text.includes(text) : text.test(n.text)),
        ),
    );
  }

  /** The session's journal shows the call neither approved nor run. */
  async function expectNothingRan(sessionId: string): Promise<void> {
    const types = (await session.journal(sessionId)).map((e) => e.type);
    expect(types).toContain('ToolApprovalRequested');
    expect(types).not.toContain('ToolApprovalResolved');
    expect(types).not.toContain('ToolExecutionStarted');
  }

  /** The prompt as shown now, still answerable. */
  function expectStillPending(conversation: Conversation, prompt: ChatMessageView): void {
    const now = driver.messagesIn(conversation).find((m) => m.messageId === prompt.messageId);
    expect(now?.buttons.map((b) => b.label)).toEqual(prompt.buttons.map((b) => b.label));
  }

  /**
   * No response reached the command stream for these sessions, up to a message sent now (the
   * binding publishes in order, so anything an earlier click published arrives before it). It
   * is sent in a conversation of its own: in the prompt's, it would supersede the prompt.
   */
  async function expectNoResponse(sessionIds: string[]) {
    const text = `sentinel ${uniqueToken('')}`;
    expect((await driver.say(binding.url, driver.freshConversation(), text, alice)).status).toBe(
      200,
    );
    await waitFor('the sentinel on the command stream', () =>
      binding.commands.some((c) => c.command.type === 'UserMessage' && c.command.text === text),
    );
    expect(
      binding.commands.filter(
        (c) =>
          c.command.type === 'ToolInteractionResponse' && sessionIds.includes(c.command.sessionId),
      ),
    ).toEqual([]);
  }

  it('X7 a click by a non-requester is refused with a private notice, and nothing runs', async () => {
    const { conversation, sessionId, prompt } = await askedByAlice('x7 non-requester');
    const before = driver.notices().length;
    const response = await driver.click(binding.url, prompt, button(prompt, 'Approve once'), bob);
    expect(response.status).toBe(200);
    await noticeTo(bob, NOT_REQUESTER, before);
    expect(
      driver
        .notices()
        .slice(before)
        .filter((n) => n.userId !== bob.id),
    ).toEqual([]);
    await expectNothingRan(sessionId);
    expectStillPending(conversation, prompt);
  });

  it("X7 a click carrying another platform's session id is refused at the binding before anything is published, and nothing runs", async () => {
    // A live prompt of another platform's session, asked by alice herself: forwarded, her
    // click would approve it.
    const foreign = freshConversation(platform === 'slack' ? 'mattermost' : 'slack');
    const foreignSessionId = deriveSessionId(foreign);
    await session.send(
      userMessage(foreign, '!write_note {"text":"x7 foreign"}', { sender: alice }),
    );
    const [foreignRequest] = await session.outputs.waitForOutputs(
      'the foreign prompt',
      (o): o is ToolInteractionRequest => o.type === 'ToolInteractionRequest',
      { sessionId: foreignSessionId },
    );
    const { conversation, sessionId, prompt } = await askedByAlice('x7 own prompt');
    const forged = driver.tamperedButton(button(prompt, 'Approve once'), {
      prompt: { sessionId: foreignSessionId, callId: foreignRequest.callId },
    });
    const before = driver.notices().length;
    const response = await driver.click(binding.url, prompt, forged, alice);
    if (platform === 'mattermost') {
      // docs/protocol.md §5: the journal holds no such prompt with that nonce, so 401 and no
      // ephemeral_text; Mattermost shows the clicker its own error for the failed action.
      expect(response.status).toBe(401);
    } else if (platform === 'discord') {
      // R1: Discord's answer to the click is itself the private notice (ephemeral type 4).
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { type: number; data?: { content?: string } };
      expect(answer).toMatchObject({ type: 4, data: { flags: 64 } });
      expect(answer.data?.content).toBe(NO_LONGER_VALID);
    } else {
      expect(response.status).toBe(200);
      await noticeTo(alice, NO_LONGER_VALID, before);
    }
    await expectNoResponse([foreignSessionId, sessionId]);
    await expectNothingRan(foreignSessionId);
    await expectNothingRan(sessionId);
    expectStillPending(conversation, prompt);
  });

  it('X7 an option the prompt did not offer is refused with a private notice, and nothing runs', async () => {
    const { conversation, sessionId, prompt } = await askedByAlice('x7 option');
    expect(prompt.buttons.map((b) => b.label)).toEqual(['Approve once', 'Deny']);
    const always = driver.tamperedButton(button(prompt, 'Approve once'), {
      optionKey: 'approve_always',
    });
    const before = driver.notices().length;
    expect((await driver.click(binding.url, prompt, always, alice)).status).toBe(200);
    await noticeTo(alice, NOT_OFFERED, before);
    await expectNothingRan(sessionId);
    expectStillPending(conversation, prompt);
    const types = (await session.journal(sessionId)).map((e) => e.type);
    expect(types).toContain('ToolApprovalRefused');
  });

  if (platform === 'mattermost') {
    it('X7 an automation prompt answered by a non-member is refused with a private notice, and nothing runs; a member may answer it', async () => {
      const conversation = driver.freshConversation();
      const sessionId = deriveSessionId(conversation);
      await session.send(
        userMessage(conversation, '!write_note {"text":"x7 reminder"}', {
          principal: 'automation',
          sender: { id: 'reminderbot000000000000000', displayName: 'reminder' },
        }),
      );
      const prompt = await promptIn(conversation);
      const approve = button(prompt, 'Approve once');
      const before = driver.notices().length;
      const refused = await driver.click(binding.url, prompt, approve, MALLORY);
      expect(refused.status).toBe(200);
      await noticeTo(MALLORY, NOT_A_MEMBER, before);
      expect(
        (driver as MattermostDriver).fake.isChannelMember(conversation.channelId, MALLORY.id),
      ).toBe(false);
      await expectNoResponse([sessionId]);
      await expectNothingRan(sessionId);
      expectStillPending(conversation, prompt);

      // Anyone in the channel may answer an automation's prompt: bob is not the requester.
      expect((await driver.click(binding.url, prompt, approve, bob)).status).toBe(200);
      await waitFor('the note written', () =>
        driver.messagesIn(conversation).find((m) => m.text.includes('write_note: 1')),
      );
    });
  }
});
