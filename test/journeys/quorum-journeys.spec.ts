import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Conversation, deriveSessionId, type Person, type Platform } from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { MattermostDriver } from '../contract/drivers/mattermost.driver';
import type { ChatButton, ChatMessageView, PlatformDriver } from '../contract/platform-driver';
import type { BindingFixture } from '../support/binding.fixture';
import { alice, bob } from '../support/commands';
import type { SessionServiceFixture } from '../support/session-service.fixture';
import { startJourneySystem, type JourneySystem } from '../support/journey-system.fixture';
import { tollgate } from '../support/tollgate-cli';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

/**
 * (process) G1 through chat on each platform: write_note needs 2 of Bob, Carol and Dave; Alice,
 * who asks, is named too but kept separate. The session service and the binding run as real
 * processes on one prefix against the platform's stand-in; the session service is SIGKILLed
 * with one approval in.
 */
const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];

const carol: Person = { id: 'U_CAROL', displayName: 'Carol' };
const dave: Person = { id: 'U_DAVE', displayName: 'Dave' };

const POLICY = `tools:
  echo: { mode: auto }
  write_note:
    mode: approval
    quorum: 2
    approvers: [U_ALICE, { id: U_BOB, name: Bob }, { id: U_CAROL, name: Carol }, { id: U_DAVE, name: Dave }]
    separateApprover: true
`;

const OWN_CALL = 'You asked for this, so someone else must approve it';
const ALREADY_COUNTED = 'Your answer to this request is already counted; nothing changed.';

describe.each(platforms)('G1 — two-person rule and quorum, whole system through %s', (platform) => {
  let driver: PlatformDriver;
  let session: SessionServiceFixture;
  let binding: BindingFixture;
  const policyFile = join(tmpdir(), `${uniqueToken('g1policy')}.yaml`);

  let system: JourneySystem | undefined;

  beforeAll(async () => {
    writeFileSync(policyFile, POLICY);
    system = await startJourneySystem(platform, 'g1', { TOOL_POLICY_FILE: policyFile });
    ({ driver, session, binding } = system);
  });

  afterAll(async () => {
    await system?.dispose();
    rmSync(policyFile, { force: true });
  });

  /** Alice asks for write_note; the prompt once the binding has journaled it. */
  async function askedByAlice(text: string) {
    const conversation = driver.freshConversation();
    if (platform === 'mattermost') {
      // Mattermost signs no click: the binding asks whether the clicker is in the channel, and
      // names them by the username the server knows.
      const { fake } = driver as MattermostDriver;
      fake.addChannelMembers(conversation.channelId, [carol.id, dave.id]);
      for (const person of [carol, dave]) fake.setUsername(person.id, person.displayName!);
    }
    const said = await driver.say(
      binding.url,
      conversation,
      `!write_note {"text":"${text}"}`,
      alice,
    );
    expect(said.status).toBe(200);
    const sessionId = deriveSessionId(conversation);
    const prompt = await shown(conversation, 'the prompt with its tally', (m) =>
      m.text.includes('0 of 2 approvals'),
    );
    await binding.postJournaled(prompt.messageId);
    return { conversation, sessionId, prompt };
  }

  function shown(
    conversation: Conversation,
    what: string,
    predicate: (m: ChatMessageView) => boolean,
  ): Promise<ChatMessageView> {
    return waitFor(what, () => driver.messagesIn(conversation).find(predicate));
  }

  function button(prompt: ChatMessageView, label: string): ChatButton {
    const found = prompt.buttons.find((b) => b.label === label);
    if (!found) throw new Error(`no ${label} button on ${JSON.stringify(prompt.buttons)}`);
    return found;
  }

  async function click(prompt: ChatMessageView, label: string, who: Person): Promise<void> {
    expect((await driver.click(binding.url, prompt, button(prompt, label), who)).status).toBe(200);
  }

  /** The tally edited in place: the same message, its buttons kept. */
  async function tallied(conversation: Conversation, prompt: ChatMessageView, count: string) {
    const now = await shown(conversation, `the tally "${count}"`, (m) =>
      m.messageId === prompt.messageId ? m.text.includes(count) : false,
    );
    expect(now.buttons.map((b) => b.label)).toEqual(prompt.buttons.map((b) => b.label));
    return now;
  }

  function noticeTo(person: Person, text: string, after: number) {
    return waitFor(`a private notice to ${person.id}: ${text}`, () =>
      driver
        .notices()
        .slice(after)
        .find((n) => n.userId === person.id && n.text.includes(text)),
    );
  }

  async function journalTypes(sessionId: string): Promise<string[]> {
    return (await session.journal(sessionId)).map((e) => e.type);
  }

  const runs = async (sessionId: string) =>
    (await journalTypes(sessionId)).filter((t) => t === 'ToolExecutionStarted').length;

  it('G1 quorum 2 of 3: one approval edits the tally and runs nothing; the requester and a second click do not count; the second approver runs it once', async () => {
    const { conversation, sessionId, prompt } = await askedByAlice('g1 two of three');
    expect(prompt.text).toMatch(/waiting for .*Bob.*Carol.*Dave/s);

    await click(prompt, 'Approve once', bob);
    const one = await tallied(conversation, prompt, '1 of 2 approvals');
    expect(one.text).toMatch(/✓ .*Bob/);
    expect(await journalTypes(sessionId)).toContain('ToolApprovalCounted');
    expect(await runs(sessionId)).toBe(0);
    // The operator sees how far the tally has got.
    const cliEnv = {
      DATABASE_URL: session.env().DATABASE_URL,
      DATABASE_SCHEMA: session.env().DATABASE_SCHEMA,
    };
    const show = await tollgate(['sessions', 'show', sessionId], cliEnv);
    expect(show.stdout).toMatch(/ pending age=\d+s tally=1\/2 approved_by=U_BOB$/m);

    let before = driver.notices().length;
    await click(one, 'Approve once', alice);
    await noticeTo(alice, OWN_CALL, before);
    before = driver.notices().length;
    await click(one, 'Approve once', bob);
    await noticeTo(bob, ALREADY_COUNTED, before);
    expect(await runs(sessionId)).toBe(0);

    await click(one, 'Approve once', carol);
    const decided = await shown(conversation, 'the decided prompt', (m) =>
      m.messageId === prompt.messageId ? m.buttons.length === 0 : false,
    );
    expect(decided.text).toMatch(/Approve once.* by .*Bob.*Carol/s);
    await shown(conversation, 'the reply', (m) => m.text.includes('write_note: 1'));
    expect(await runs(sessionId)).toBe(1);
  });

  it('G1 a deny after one approval vetoes: denied, nothing runs', async () => {
    const { conversation, sessionId, prompt } = await askedByAlice('g1 veto');
    await click(prompt, 'Approve once', bob);
    const one = await tallied(conversation, prompt, '1 of 2 approvals');
    await click(one, 'Deny', dave);
    const vetoed = await shown(conversation, 'the vetoed prompt', (m) =>
      m.messageId === prompt.messageId ? m.buttons.length === 0 : false,
    );
    expect(vetoed.text).toMatch(/Deny.* by .*Dave.*a veto overruling/s);
    await shown(conversation, 'the reply', (m) => m.text.includes('write_note: denied'));
    const types = await journalTypes(sessionId);
    expect(types).toContain('ToolApprovalResolved');
    expect(types).not.toContain('ToolExecutionStarted');
  });

  it('G1 SIGKILL with one approval in: the prompt says "still valid" with the tally intact, and the second approval runs it once', async () => {
    const { conversation, sessionId, prompt } = await askedByAlice('g1 crash');
    await click(prompt, 'Approve once', bob);
    await tallied(conversation, prompt, '1 of 2 approvals');

    await session.restart('SIGKILL');
    const refreshed = await shown(conversation, 'the still-valid prompt', (m) =>
      m.messageId === prompt.messageId ? /still valid/i.test(m.text) : false,
    );
    expect(refreshed.text).toContain('1 of 2 approvals');
    expect(refreshed.text).toMatch(/✓ .*Bob/);

    await click(refreshed, 'Approve once', carol);
    await shown(conversation, 'the reply', (m) => m.text.includes('write_note: 1'));
    expect(await runs(sessionId)).toBe(1);
  });

  it('G1 two approvers clicking at once complete the quorum exactly once', async () => {
    const { conversation, sessionId, prompt } = await askedByAlice('g1 race');
    await click(prompt, 'Approve once', dave);
    const one = await tallied(conversation, prompt, '1 of 2 approvals');

    await Promise.all([click(one, 'Approve once', bob), click(one, 'Approve once', carol)]);
    await shown(conversation, 'the reply', (m) => m.text.includes('write_note: 1'));
    // Both answers were decided (one resolved it, the other found it no longer pending).
    await waitFor('both answers decided', async () =>
      (await journalTypes(sessionId)).filter((t) => t === 'ToolApprovalRefused').length === 1
        ? true
        : undefined,
    );
    const types = await journalTypes(sessionId);
    expect(types.filter((t) => t === 'ToolApprovalResolved')).toHaveLength(1);
    expect(await runs(sessionId)).toBe(1);
  });
});
