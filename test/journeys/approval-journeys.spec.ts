import type { Platform } from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { ChatMessageView, PlatformDriver } from '../contract/platform-driver';
import type { BindingFixture } from '../support/binding.fixture';
import { alice } from '../support/commands';
import type { SessionServiceFixture } from '../support/session-service.fixture';
import { startJourneySystem, type JourneySystem } from '../support/journey-system.fixture';
import { withClient } from '../support/database';
import { tollgate } from '../support/tollgate-cli';
import { waitFor } from '../support/wait-for';

/**
 * (process) The whole system through chat only: signed platform requests in, the platform's
 * fake API out, the session service and the binding as real processes on one prefix, the
 * session service restarted for real in between.
 */
const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];

describe('E3 the same journeys on every platform', () => {
  it('E3 runs E1 and E2 through slack, discord and mattermost', () => {
    expect([...platforms].sort()).toEqual(['discord', 'mattermost', 'slack']);
  });
});

describe.each(platforms)('whole system through %s', (platform) => {
  let driver: PlatformDriver;
  let session: SessionServiceFixture;
  let binding: BindingFixture;

  let system: JourneySystem | undefined;

  beforeAll(async () => {
    system = await startJourneySystem(platform, 'e');
    ({ driver, session, binding } = system);
  });

  afterAll(async () => {
    await system?.dispose();
  });

  const say = async (
    conversation: ReturnType<PlatformDriver['freshConversation']>,
    text: string,
  ) => {
    const response = await driver.say(binding.url, conversation, text, alice);
    expect(response.status).toBe(200);
  };

  const prompt = (
    conversation: ReturnType<PlatformDriver['freshConversation']>,
    what: string,
    predicate: (m: ChatMessageView) => boolean,
  ) =>
    waitFor(what, () =>
      driver
        .messagesIn(conversation)
        .find((m) => (m.buttons.length > 0 || m.edits > 0 ? predicate(m) : false)),
    );

  const replyIn = (conversation: ReturnType<PlatformDriver['freshConversation']>, text: string) =>
    waitFor(`the reply "${text}"`, () =>
      driver.messagesIn(conversation).find((m) => m.buttons.length === 0 && m.text.includes(text)),
    );

  it('E1 a gated tool: prompt, restart says it survived, a click runs it once and shows the decision', async () => {
    const conversation = driver.freshConversation();
    await say(conversation, '!write_note {"text":"buy milk"}');
    const posted = await prompt(
      conversation,
      'the prompt with buttons',
      (m) => m.buttons.length > 0,
    );
    expect(posted.text).toContain('buy milk');

    await session.restart('SIGTERM');
    const refreshed = await prompt(conversation, 'the still-valid prompt', (m) =>
      /still valid/i.test(m.text),
    );
    expect(refreshed.messageId).toBe(posted.messageId);
    expect(refreshed.buttons.map((b) => b.label)).toEqual(posted.buttons.map((b) => b.label));

    const approve = refreshed.buttons.find((b) => b.label === 'Approve once')!;
    expect((await driver.click(binding.url, refreshed, approve, alice)).status).toBe(200);
    const decided = await prompt(
      conversation,
      'the decided prompt',
      (m) => m.buttons.length === 0 && m.text.includes('Approve once'),
    );
    expect(decided.messageId).toBe(posted.messageId);
    await replyIn(conversation, 'write_note: 1');
  });

  it('E2 a new message supersedes the prompt: buttons gone, new message answered, old buttons run nothing', async () => {
    const conversation = driver.freshConversation();
    await say(conversation, '!write_note {"text":"old idea"}');
    const posted = await prompt(
      conversation,
      'the prompt with buttons',
      (m) => m.buttons.length > 0,
    );

    await session.restart('SIGTERM');
    await prompt(conversation, 'the still-valid prompt', (m) => /still valid/i.test(m.text));

    await say(conversation, 'never mind');
    const superseded = await prompt(
      conversation,
      'the superseded prompt',
      (m) => m.buttons.length === 0 && /superseded/i.test(m.text),
    );
    expect(superseded.messageId).toBe(posted.messageId);
    await replyIn(conversation, 'You said: never mind');

    // An approver whose client still shows the old buttons clicks one.
    const noticesBefore = driver.notices().length;
    const approve = posted.buttons.find((b) => b.label === 'Approve once')!;
    expect((await driver.click(binding.url, posted, approve, alice)).status).toBe(200);
    await waitFor('a private notice that the prompt expired', () =>
      driver.notices().length > noticesBefore ? true : undefined,
    );
    // Nothing ran: the journal holds no execution, and no reply names the tool.
    const journal = await session.journal(
      binding.commands.find((c) => c.command.conversation.channelId === conversation.channelId)!
        .command.sessionId,
    );
    expect(journal.filter((e) => e.type === 'ToolExecutionStarted')).toHaveLength(0);
    expect(driver.messagesIn(conversation).some((m) => m.text.includes('write_note:'))).toBe(false);
    expect(driver.messagesIn(conversation).filter((m) => m.buttons.length > 0)).toHaveLength(0);
  });

  it("G4 the audit export lists the prompt as shown, with the platform's own message ids, between its request and its answer", async () => {
    const conversation = driver.freshConversation();
    await say(conversation, '!write_note {"text":"audited prompt"}');
    const posted = await prompt(
      conversation,
      'the prompt with buttons',
      (m) => m.buttons.length > 0,
    );
    const sessionId = binding.commands.find(
      (c) => c.command.conversation.channelId === conversation.channelId,
    )!.command.sessionId;
    // The binding reports the post after journaling it; the session journals it in its turn.
    await waitFor('the prompt_shown entry', () =>
      withClient(async (client) => {
        const { rows } = await client.query(
          `SELECT 1 FROM "${session.database.schema}".audit_log
           WHERE session_id = $1 AND kind = 'prompt_shown'`,
          [sessionId],
        );
        return rows.length > 0;
      }),
    );

    // Clicked once the report is in, so the order below is the journey's, not a race's.
    const approve = posted.buttons.find((b) => b.label === 'Approve once')!;
    expect((await driver.click(binding.url, posted, approve, alice)).status).toBe(200);
    await replyIn(conversation, 'write_note: 1');

    const today = new Date().toISOString().slice(0, 10);
    const exported = await tollgate(['audit', 'export', '--since', today], {
      DATABASE_URL: session.database.url,
      DATABASE_SCHEMA: session.database.schema,
    });
    expect(exported.code).toBe(0);
    const entries = exported.stdout
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            kind: string;
            sessionId: string;
            callId: string | null;
            detail: Record<string, unknown>;
          },
      )
      .filter((e) => e.sessionId === sessionId);
    const kinds = entries.map((e) => e.kind);
    // Shown once: the edit that showed the decision kept the message, so its ids.
    expect(kinds.filter((k) => k === 'prompt_shown')).toHaveLength(1);
    expect(kinds.indexOf('request')).toBeLessThan(kinds.indexOf('prompt_shown'));
    expect(kinds.indexOf('prompt_shown')).toBeLessThan(kinds.indexOf('answer'));
    const shown = entries.find((e) => e.kind === 'prompt_shown');
    const request = entries.find((e) => e.kind === 'request');
    expect(shown).toMatchObject({
      callId: request?.callId,
      detail: {
        platform,
        channelId: posted.channelId,
        messageId: posted.messageId,
        shown: 'posted',
      },
    });
  });
});
