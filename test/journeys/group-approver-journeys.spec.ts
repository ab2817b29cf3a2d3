import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveSessionId, type Person, type Platform } from '@tollgate/protocol';
import type { ChatMessageView, PlatformDriver } from '../contract/platform-driver';
import type { BindingFixture } from '../support/binding.fixture';
import type { SessionServiceFixture } from '../support/session-service.fixture';
import { startJourneySystem, type JourneySystem } from '../support/journey-system.fixture';
import { uniqueToken } from '../support/unique';
import { GROUP_CAST, setPlatformGroup } from '../support/platform-groups';
import { waitFor } from '../support/wait-for';

/**
 * (process) G1 with a platform group as the approvers: write_note may be approved by the
 * members of "ops" — a Slack user group, a Discord role, a Mattermost group — which the binding
 * resolves through the platform's stand-in when it posts the prompt and journals with it.
 * Alice asks, Bob is in the group, Carol is not.
 */
const platforms: Platform[] = ['slack', 'discord', 'mattermost'];

const GROUPS: Record<Platform, string> = {
  slack: 'S0OPSGROUP',
  discord: '1300000000000000077',
  mattermost: 'opsgroup000000000000000000',
};

describe.each(platforms)('G1 — a platform group as the approvers, through %s', (platform) => {
  const group = GROUPS[platform];
  const { alice, bob, carol } = GROUP_CAST[platform];
  const policyFile = join(tmpdir(), `${uniqueToken('g1group')}.yaml`);
  let system: JourneySystem | undefined;
  let driver: PlatformDriver;
  let session: SessionServiceFixture;
  let binding: BindingFixture;

  beforeAll(async () => {
    writeFileSync(
      policyFile,
      `tools:
  echo: { mode: auto }
  write_note:
    mode: approval
    approvers: [{ group: "${group}", name: ops }]
`,
    );
    system = await startJourneySystem(platform, 'g1g', { TOOL_POLICY_FILE: policyFile });
    ({ driver, session, binding } = system);
  });

  afterAll(async () => {
    await system?.dispose();
    rmSync(policyFile, { force: true });
  });

  async function asked(text: string) {
    const conversation = driver.freshConversation();
    setPlatformGroup(platform, driver, group, [bob], conversation);
    expect(
      (await driver.say(binding.url, conversation, `!write_note {"text":"${text}"}`, alice)).status,
    ).toBe(200);
    const prompt = await waitFor('the prompt', () =>
      driver
        .messagesIn(conversation)
        .find((m) => m.buttons.some((b) => b.label === 'Approve once')),
    );
    const sessionId = deriveSessionId(conversation);
    await binding.postJournaled(prompt.messageId);
    return { conversation, sessionId, prompt };
  }

  async function click(prompt: ChatMessageView, who: Person): Promise<void> {
    const approve = prompt.buttons.find((b) => b.label === 'Approve once')!;
    expect((await driver.click(binding.url, prompt, approve, who)).status).toBe(200);
  }

  const journal = (sessionId: string) => session.journal(sessionId);
  const runs = async (sessionId: string) =>
    (await journal(sessionId)).filter((e) => e.type === 'ToolExecutionStarted').length;

  it(`G1 ${platform}: a non-member's approval is refused privately (wrong_requester) and nothing runs; a member's approval runs the call once`, async () => {
    const { conversation, sessionId, prompt } = await asked('g1 group');
    expect(prompt.text).toContain('members of ops');
    // Resolved through the platform when posted, and journaled with the prompt.
    expect(await binding.approverMembers(sessionId)).toEqual({ [group]: [bob.id] });

    const before = driver.notices().length;
    await click(prompt, carol);
    const notice = await waitFor(`a private notice to ${carol.id}`, () =>
      driver
        .notices()
        .slice(before)
        .find((n) => n.userId === carol.id),
    );
    expect(notice.text).toContain('Only the approvers this request names');
    await waitFor('the refusal journaled', async () =>
      (await journal(sessionId)).find(
        (e) => e.type === 'ToolApprovalRefused' && e.data.reason === 'wrong_requester',
      ),
    );
    expect(await runs(sessionId)).toBe(0);
    const still = driver.messagesIn(conversation).find((m) => m.messageId === prompt.messageId)!;
    expect(still.buttons.map((b) => b.label)).toContain('Approve once');

    await click(still, bob);
    await waitFor('the reply', () =>
      driver.messagesIn(conversation).find((m) => m.text.includes('write_note: 1')),
    );
    expect(await runs(sessionId)).toBe(1);
    const resolved = (await journal(sessionId)).find((e) => e.type === 'ToolApprovalResolved');
    expect(resolved?.data).toMatchObject({ approved: true, resolvedBy: { id: bob.id } });
  });

  it(`G1 ${platform}: the members are those resolved when the prompt was posted: someone added to the group later is refused`, async () => {
    const { conversation, sessionId, prompt } = await asked('g1 group later');
    setPlatformGroup(platform, driver, group, [bob, carol], conversation);
    await click(prompt, carol);
    await waitFor('the refusal journaled', async () =>
      (await journal(sessionId)).find(
        (e) =>
          e.type === 'ToolApprovalRefused' &&
          (e.data.sender as { id?: string } | undefined)?.id === carol.id,
      ),
    );
    expect(await runs(sessionId)).toBe(0);
    expect(await binding.approverMembers(sessionId)).toEqual({ [group]: [bob.id] });
    await click(prompt, bob);
    await waitFor('the reply', () =>
      driver.messagesIn(conversation).find((m) => m.text.includes('write_note: 1')),
    );
  });
});
