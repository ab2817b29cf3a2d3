import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argumentsHashOf } from '@tollgate/protocol';
import type { ChatMessageView, PlatformDriver } from '../contract/platform-driver';
import type { ApiAnswer, ApprovalApiSystem } from '../support/approval-api.fixture';
import {
  type ApiJourneySystem,
  startApiJourneySystem,
} from '../support/api-journey-system.fixture';
import type { BindingFixture } from '../support/binding.fixture';
import { alice } from '../support/commands';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

/**
 * (process) G2 over the approval API, end to end through Slack: the session service's policy
 * lets Claude Code's `Write` have its `file_path` narrowed under /srv/a (under `apiTools:`, the
 * tool names agents send, which the session service itself does not have); an agent asks over
 * HTTP for that tool, alice edits in Slack's modal, and the agent reads the edited arguments
 * back by its long poll and redeems them — with the hash of what it will run, never the one it
 * asked with.
 */
const POLICY = `
tools:
  echo: { mode: auto }
  write_note: { mode: approval }
apiTools:
  Write:
    editable:
      file_path: { prefix: /srv/a }
`;

describe('G2 — an API approval approved with edited arguments, whole system through slack', () => {
  const platform = 'slack';
  const policyFile = join(tmpdir(), `${uniqueToken('g2apipolicy')}.yaml`);
  let system: ApiJourneySystem | undefined;
  let driver: PlatformDriver;
  let binding: BindingFixture;
  let approvals: ApprovalApiSystem;

  beforeAll(async () => {
    writeFileSync(policyFile, POLICY);
    system = await startApiJourneySystem(platform, 'ge', {
      sessionEnv: { TOOL_POLICY_FILE: policyFile },
    });
    ({ driver, binding, approvals } = system);
  }, 90_000);

  afterAll(async () => {
    await system?.dispose();
    rmSync(policyFile, { force: true });
  });

  it('G2 API: edited in Slack, the long poll shows finalArguments and their hash; redeem refuses the requested hash (422 arguments_mismatch) and takes the final one once', async () => {
    const conversation = driver.freshConversation();
    const { key } = await approvals.createClient({
      name: 'build bot',
      platform,
      workspaceId: conversation.workspaceId,
      conversation: { channelId: conversation.channelId, threadId: conversation.threadId },
      approvers: [alice.id],
    });
    const requested = { file_path: '/srv/a', content: 'build notes' };
    const created = await approvals.create(key, {
      tool: 'Write',
      arguments: requested,
      summary: 'Write the build notes',
      agent: { name: 'claude-code', session: 'sess-g2' },
    });
    expect(created.status).toBe(202);
    const id = created.body.id as string;
    const requestedHash = created.body.argumentsHash as string;
    expect(requestedHash).toBe(argumentsHashOf(requested));

    const prompt: ChatMessageView = await waitFor('the prompt with its edit button', () =>
      driver
        .messagesIn(conversation)
        .find((m) => m.buttons.some((b) => b.label === 'Edit & approve')),
    );
    await waitFor('the binding to journal the prompt', async () =>
      (await binding.journal()).some(
        (row) => row.call_id === id && row.type === 'PendingApprovalPromptTracked',
      )
        ? true
        : undefined,
    );

    const waiting: Promise<ApiAnswer> = approvals.call('GET', `/v1/approvals/${id}?wait=30`, {
      key,
    });
    const edit = prompt.buttons.find((b) => b.label === 'Edit & approve')!;
    const opened = await driver.openEditForm!(binding.url, prompt, edit, alice);
    expect(opened.form?.fields).toEqual([
      expect.objectContaining({ label: 'file_path', value: '/srv/a' }),
    ]);
    const submitted = await driver.submitEditForm!(binding.url, opened.form!, alice, {
      file_path: '/srv/a/build',
    });
    expect(submitted.status).toBe(200);

    const final = { file_path: '/srv/a/build', content: 'build notes' };
    const answered = await waiting;
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({
      id,
      status: 'approved',
      argumentsHash: requestedHash,
      decision: {
        option: 'approve_once',
        by: { platform, id: alice.id },
        finalArguments: final,
        finalArgumentsHash: argumentsHashOf(final),
      },
    });
    await waitFor('the prompt to show the change', () =>
      driver
        .messagesIn(conversation)
        .find(
          (m) =>
            m.messageId === prompt.messageId &&
            m.buttons.length === 0 &&
            m.text.includes('/srv/a → /srv/a/build'),
        ),
    );

    const redeem = (argumentsHash: string) =>
      approvals.call('POST', `/v1/approvals/${id}/redeem`, { key, body: { argumentsHash } });
    expect(await redeem(requestedHash)).toMatchObject({
      status: 422,
      body: { error: 'arguments_mismatch' },
    });
    expect((await redeem(argumentsHashOf(final))).status).toBe(200);
    expect(await redeem(argumentsHashOf(final))).toMatchObject({
      status: 409,
      body: { error: 'already_redeemed' },
    });
  });
});
