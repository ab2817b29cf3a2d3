import { type Conversation, deriveSessionId, type Platform } from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { ChatMessageView, PlatformDriver } from '../contract/platform-driver';
import type { BindingFixture } from '../support/binding.fixture';
import { alice } from '../support/commands';
import type { SessionServiceFixture } from '../support/session-service.fixture';
import { startJourneySystem, type JourneySystem } from '../support/journey-system.fixture';
import { waitFor } from '../support/wait-for';

/**
 * (process) Answers typed as text (docs/protocol.md §1.3) through chat only: signed platform
 * requests in, the platform's fake API out, the session service and the binding as real
 * processes on one prefix.
 */
const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];

describe.each(platforms)('B16 — answers typed as text, whole system through %s', (platform) => {
  let driver: PlatformDriver;
  let session: SessionServiceFixture;
  let binding: BindingFixture;

  let system: JourneySystem | undefined;

  beforeAll(async () => {
    system = await startJourneySystem(platform, 't');
    ({ driver, session, binding } = system);
  });

  afterAll(async () => {
    await system?.dispose();
  });

  const say = async (conversation: Conversation, text: string) => {
    const response = await driver.say(binding.url, conversation, text, alice);
    expect(response.status).toBe(200);
  };

  const prompts = (conversation: Conversation) =>
    driver.messagesIn(conversation).filter((m) => m.buttons.length > 0 || m.edits > 0);

  const prompt = (
    conversation: Conversation,
    what: string,
    predicate: (m: ChatMessageView) => boolean,
  ) => waitFor(what, () => prompts(conversation).find(predicate));

  const replyIn = (conversation: Conversation, text: string) =>
    waitFor(`the reply "${text}"`, () =>
      driver.messagesIn(conversation).find((m) => m.buttons.length === 0 && m.text.includes(text)),
    );

  const eventsOf = async (conversation: Conversation, type: string) =>
    (await session.journal(deriveSessionId(conversation))).filter((e) => e.type === type);

  it('B16 "approve" typed in the thread runs the tool once and the prompt shows it resolved', async () => {
    const conversation = driver.freshConversation();
    await say(conversation, '!write_note {"text":"buy milk"}');
    const posted = await prompt(conversation, 'the prompt', (m) => m.buttons.length > 0);
    // A person answers a prompt they can see; the binding takes an answer only on a post it has
    // journaled, a moment after the platform shows it.
    await binding.postJournaled(posted.messageId);

    await say(conversation, 'approve');

    const decided = await prompt(
      conversation,
      'the decided prompt',
      (m) => m.buttons.length === 0 && m.text.includes('Approve once'),
    );
    expect(decided.messageId).toBe(posted.messageId);
    await replyIn(conversation, 'write_note: 1');
    expect(await eventsOf(conversation, 'ToolExecutionStarted')).toHaveLength(1);
    expect(await eventsOf(conversation, 'ToolBatchAbandoned')).toEqual([]);
    expect(driver.messagesIn(conversation).some((m) => m.text.includes('You said'))).toBe(false);
  });

  it('B16 with two pending prompts a typed answer gets a private hint and supersedes nothing', async () => {
    const conversation = driver.freshConversation();
    await say(conversation, '!write_note {"text":"one"}\n!write_note {"text":"two"}');
    await waitFor('both prompts', () =>
      prompts(conversation).filter((m) => m.buttons.length > 0).length === 2 ? true : undefined,
    );
    // Both journaled, or the answer meets only the first and answers it (no hint).
    await waitFor('the binding to journal both prompts', async () =>
      (await binding.journal()).filter(
        (row) =>
          row.session_id === deriveSessionId(conversation) &&
          row.type === 'PendingApprovalPromptTracked',
      ).length === 2
        ? true
        : undefined,
    );
    const noticesBefore = driver.notices().length;

    await say(conversation, 'yes');

    await waitFor('the hint', () =>
      driver
        .notices()
        .slice(noticesBefore)
        .find((n) => n.userId === alice.id && n.text.includes('2 requests')),
    );
    // Both prompts still stand: approving each with its buttons finishes the batch.
    for (const posted of prompts(conversation)) {
      expect(posted.buttons.length).toBeGreaterThan(0);
      const approve = posted.buttons.find((b) => b.label === 'Approve once')!;
      expect((await driver.click(binding.url, posted, approve, alice)).status).toBe(200);
    }
    await replyIn(conversation, 'write_note: 2');
    expect(await eventsOf(conversation, 'ToolExecutionStarted')).toHaveLength(2);
    expect(await eventsOf(conversation, 'ToolBatchAbandoned')).toEqual([]);
    expect(driver.messagesIn(conversation).some((m) => m.text.includes('You said'))).toBe(false);
  });

  it('B16 a button click racing a typed answer runs the tool exactly once', async () => {
    const conversation = driver.freshConversation();
    await say(conversation, '!write_note {"text":"race"}');
    const posted = await prompt(conversation, 'the prompt', (m) => m.buttons.length > 0);
    // A person answers a prompt they can see; the binding takes an answer only on a post it has
    // journaled, a moment after the platform shows it.
    await binding.postJournaled(posted.messageId);
    const approve = posted.buttons.find((b) => b.label === 'Approve once')!;
    const noticesBefore = driver.notices().length;

    const [clicked] = await Promise.all([
      driver.click(binding.url, posted, approve, alice),
      say(conversation, 'approve'),
    ]);
    expect(clicked.status).toBe(200);

    await replyIn(conversation, 'write_note: 1');
    // The loser is answered too: refused as expired when it reached the session as an answer,
    // or read as a plain message when the binding had already seen the prompt resolved.
    await waitFor('the losing answer to be answered', () =>
      driver
        .notices()
        .slice(noticesBefore)
        .some((n) => n.userId === alice.id && /no longer|expired/i.test(n.text)) ||
      driver.messagesIn(conversation).some((m) => m.text.includes('You said: approve'))
        ? true
        : undefined,
    );
    expect(await eventsOf(conversation, 'ToolApprovalResolved')).toHaveLength(1);
    expect(await eventsOf(conversation, 'ToolExecutionStarted')).toHaveLength(1);
    const decided = await prompt(conversation, 'the decided prompt', (m) => m.edits > 0);
    expect(decided.buttons).toHaveLength(0);
    expect(decided.text).toContain('Approve once');
  });
});
