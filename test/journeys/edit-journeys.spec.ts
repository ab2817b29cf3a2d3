import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Conversation, deriveSessionId, type Person, type Platform } from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { ChatMessageView, PlatformDriver } from '../contract/platform-driver';
import { BindingFixture } from '../support/binding.fixture';
import { alice } from '../support/commands';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { uniqueToken } from '../support/unique';
import { waitFor } from '../support/wait-for';

/**
 * (process) G2 through chat: write_note's `text` is editable under /srv/a (as a file tool's
 * path would be), the session service and the binding run as real processes against the
 * platform's stand-in, and a person edits in the platform's own form.
 */
const POLICY = `
tools:
  echo: { mode: auto }
  write_note:
    mode: approval
    editable:
      text: { prefix: /srv/a }
`;

const REQUESTERS: Record<Platform, Person> = {
  slack: { id: 'U0G2ADA', displayName: 'ada' },
  discord: { id: '412345678901234568', displayName: 'ada' },
  mattermost: alice,
};

/** The platforms whose driver can open and submit an edit form. */
const platforms: Platform[] = ['slack', 'discord', 'mattermost'];

describe.each(platforms)(
  'G2 — approve with edited arguments, whole system through %s',
  (platform) => {
    let driver: PlatformDriver;
    let session: SessionServiceFixture;
    let binding: BindingFixture;
    const policyFile = join(tmpdir(), `${uniqueToken('g2policy')}.yaml`);
    const person = REQUESTERS[platform];

    beforeAll(async () => {
      writeFileSync(policyFile, POLICY);
      driver = CONTRACT_DRIVERS[platform]!();
      await driver.start();
      const prefix = uniqueToken(`e${platform}`).slice(0, 24);
      session = await SessionServiceFixture.create(
        `e${platform}ss`,
        { TOOL_POLICY_FILE: policyFile },
        { prefix },
      );
      binding = await BindingFixture.create(
        `${platform}-binding`,
        `e${platform}b`,
        () => driver.bindingEnv(),
        {},
        { prefix },
      );
    });

    afterAll(async () => {
      await binding?.dispose();
      await session?.dispose();
      await driver?.stop();
      rmSync(policyFile, { force: true });
    });

    const askToWrite = async (conversation: Conversation): Promise<ChatMessageView> => {
      const said = await driver.say(
        binding.url,
        conversation,
        '!write_note {"text":"/srv/a"}',
        person,
      );
      expect(said.status).toBe(200);
      const prompt = await waitFor('the prompt with its edit button', () =>
        driver
          .messagesIn(conversation)
          .find((m) => m.buttons.some((b) => b.label === 'Edit & approve')),
      );
      await binding.postJournaled(prompt.messageId);
      return prompt;
    };

    const openForm = async (prompt: ChatMessageView) => {
      const edit = prompt.buttons.find((b) => b.label === 'Edit & approve')!;
      const opened = await driver.openEditForm!(binding.url, prompt, edit, person);
      expect(opened.response.status).toBeLessThan(300);
      expect(opened.form).toBeDefined();
      return opened.form!;
    };

    const ran = async (conversation: Conversation) =>
      (await session.journal(deriveSessionId(conversation))).filter(
        (e) => e.type === 'ToolExecutionStarted',
      );

    it(`G2 ${platform}: a narrowed path runs with the new value and the prompt shows the change and who made it`, async () => {
      const conversation = driver.freshConversation();
      const prompt = await askToWrite(conversation);

      const form = await openForm(prompt);
      expect(form.fields).toEqual([
        expect.objectContaining({ label: 'text', value: '/srv/a', hint: 'Must be under /srv/a' }),
      ]);
      const submitted = await driver.submitEditForm!(binding.url, form, person, {
        text: '/srv/a/tmp',
      });
      expect(submitted.status).toBe(200);

      const resolved = await waitFor('the prompt resolved with the change', () =>
        driver
          .messagesIn(conversation)
          .find(
            (m) =>
              m.messageId === prompt.messageId &&
              m.buttons.length === 0 &&
              m.text.includes('/srv/a → /srv/a/tmp'),
          ),
      );
      expect(resolved.text).toContain('Approve once');
      expect(resolved.text).toMatch(new RegExp(`${person.id}|${person.displayName}`));
      await waitFor('the batch reply', () =>
        driver.messagesIn(conversation).find((m) => m.text.includes('write_note: 1')),
      );
      const journal = await session.journal(deriveSessionId(conversation));
      expect(journal.filter((e) => e.type === 'ToolCallRecorded').map((e) => e.data.note)).toEqual([
        '/srv/a/tmp',
      ]);
      expect(journal.find((e) => e.type === 'ToolApprovalResolved')?.data).toMatchObject({
        edit: { changes: [{ name: 'text', from: '/srv/a', to: '/srv/a/tmp' }] },
      });
    });

    it(`G2 ${platform}: a widened path is refused with a private reason, nothing runs, and the prompt stays answerable`, async () => {
      const conversation = driver.freshConversation();
      const prompt = await askToWrite(conversation);
      const noticesBefore = driver.notices().length;

      const form = await openForm(prompt);
      const submitted = await driver.submitEditForm!(binding.url, form, person, { text: '/srv' });
      expect(submitted.status).toBe(200);

      const notice = await waitFor('the private reason', () =>
        driver
          .notices()
          .slice(noticesBefore)
          .find((n) => n.userId === person.id && n.text.includes('must be under /srv/a')),
      );
      expect(notice.text).toContain('Nothing was run');
      expect(await ran(conversation)).toEqual([]);
      const still = driver.messagesIn(conversation).find((m) => m.messageId === prompt.messageId)!;
      expect(still.buttons.map((b) => b.label)).toContain('Approve once');

      // The prompt still decides: approved as asked, it runs once with the original value.
      const approve = still.buttons.find((b) => b.label === 'Approve once')!;
      await driver.click(binding.url, still, approve, person);
      await waitFor('the batch reply', () =>
        driver.messagesIn(conversation).find((m) => m.text.includes('write_note: 1')),
      );
      expect(await ran(conversation)).toHaveLength(1);
    });

    it(`G2 ${platform}: the form opens while the session service is stopped, and its submission runs once the service is back`, async () => {
      const conversation = driver.freshConversation();
      const prompt = await askToWrite(conversation);

      await session.stop();
      let form;
      try {
        form = await openForm(prompt);
      } finally {
        await session.start();
      }
      expect(form.fields.map((f) => f.value)).toEqual(['/srv/a']);

      await driver.submitEditForm!(binding.url, form, person, { text: '/srv/a/b' });
      await waitFor('the prompt resolved with the change', () =>
        driver
          .messagesIn(conversation)
          .find((m) => m.messageId === prompt.messageId && m.text.includes('/srv/a → /srv/a/b')),
      );
      expect(await ran(conversation)).toHaveLength(1);
    });
  },
);
