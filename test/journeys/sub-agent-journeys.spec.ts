import { deriveSessionId, type Platform } from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { ChatMessageView, PlatformDriver } from '../contract/platform-driver';
import type { BindingFixture } from '../support/binding.fixture';
import { alice } from '../support/commands';
import type { SessionServiceFixture } from '../support/session-service.fixture';
import { startJourneySystem, type JourneySystem } from '../support/journey-system.fixture';
import { waitFor } from '../support/wait-for';

/**
 * (process) A delegated sub-agent through chat only: the parent's `delegate` call and the
 * child's own gated call are both answered in the parent's conversation, across a real
 * restart of the session service, with the binding as a real process.
 */
const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];

const DELEGATE = `!delegate ${JSON.stringify({
  task: '!write_note {"text":"from the child"}',
  name: 'scribe',
  tools: ['write_note'],
})}`;

describe.each(platforms)('E4 sub-agent approvals through %s', (platform) => {
  let driver: PlatformDriver;
  let session: SessionServiceFixture;
  let binding: BindingFixture;

  let system: JourneySystem | undefined;

  beforeAll(async () => {
    system = await startJourneySystem(platform, 's');
    ({ driver, session, binding } = system);
  });

  afterAll(async () => {
    await system?.dispose();
  });

  type Conversation = ReturnType<PlatformDriver['freshConversation']>;

  const prompt = (
    conversation: Conversation,
    what: string,
    predicate: (m: ChatMessageView) => boolean,
  ) =>
    waitFor(what, () =>
      driver
        .messagesIn(conversation)
        .find((m) => (m.buttons.length > 0 || m.edits > 0 ? predicate(m) : false)),
    );

  const approve = async (message: ChatMessageView) => {
    const button = message.buttons.find((b) => b.label === 'Approve once')!;
    expect((await driver.click(binding.url, message, button, alice)).status).toBe(200);
  };

  it(`E4 ${platform}: delegate, the child's prompt names the sub-agent and parent call, survives a restart, and its result answers the parent`, async () => {
    const conversation = driver.freshConversation();
    const said = await driver.say(binding.url, conversation, DELEGATE, alice);
    expect(said.status).toBe(200);

    const delegation = await prompt(
      conversation,
      'the delegate prompt',
      (m) => m.buttons.length > 0 && m.text.includes('delegate'),
    );
    expect(delegation.text).not.toContain('sub-agent scribe (for call');
    // A click is taken only on a journaled post (Mattermost checks its nonce there): the
    // stand-in shows the post a moment before the binding tracks it (a 401 seen on a fresh run).
    await binding.postJournaled(delegation.messageId);
    await approve(delegation);

    const child = await prompt(
      conversation,
      "the child's prompt",
      // The delegate prompt quotes the task too, and may not be edited yet.
      (m) =>
        m.messageId !== delegation.messageId &&
        m.buttons.length > 0 &&
        m.text.includes('from the child'),
    );
    expect(child.text).toContain('sub-agent scribe (for call call_2_1)');

    await session.restart('SIGTERM');
    const refreshed = await prompt(
      conversation,
      "the child's still-valid prompt",
      (m) => m.messageId === child.messageId && /still valid/i.test(m.text),
    );
    expect(refreshed.text).toContain('sub-agent scribe (for call call_2_1)');
    await approve(refreshed);

    await prompt(
      conversation,
      "the child's decided prompt",
      (m) =>
        m.messageId === child.messageId &&
        m.buttons.length === 0 &&
        m.text.includes('Approve once'),
    );
    await waitFor('the reply with the delegate result', () =>
      driver
        .messagesIn(conversation)
        .find((m) => m.buttons.length === 0 && m.text.includes('delegate: write_note: 1')),
    );
  });
  it(`X16 ${platform}: "approve" typed in the conversation answers the sub-agent's prompt instead of superseding its batch`, async () => {
    const conversation = driver.freshConversation();
    expect((await driver.say(binding.url, conversation, DELEGATE, alice)).status).toBe(200);
    const delegation = await prompt(
      conversation,
      'the delegate prompt',
      (m) => m.buttons.length > 0 && m.text.includes('delegate'),
    );
    // A click is taken only on a journaled post (Mattermost checks its nonce there).
    await binding.postJournaled(delegation.messageId);
    await approve(delegation);
    const child = await prompt(
      conversation,
      "the child's prompt",
      (m) =>
        m.messageId !== delegation.messageId &&
        m.buttons.length > 0 &&
        m.text.includes('from the child'),
    );
    // Only a prompt the binding has journaled as shown can be answered by typing (§1.3).
    await binding.postJournaled(child.messageId);

    expect((await driver.say(binding.url, conversation, 'approve', alice)).status).toBe(200);

    await prompt(
      conversation,
      "the child's decided prompt",
      (m) =>
        m.messageId === child.messageId &&
        m.buttons.length === 0 &&
        m.text.includes('Approve once'),
    );
    await waitFor('the reply with the delegate result', () =>
      driver
        .messagesIn(conversation)
        .find((m) => m.buttons.length === 0 && m.text.includes('delegate: write_note: 1')),
    );
    const parent = await session.journal(deriveSessionId(conversation));
    expect(parent.filter((e) => e.type === 'ToolBatchAbandoned')).toEqual([]);
    expect(parent.filter((e) => e.type === 'UserMessageReceived')).toHaveLength(1);
  });
});
