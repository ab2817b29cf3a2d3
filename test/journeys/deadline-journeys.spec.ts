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
 * (process) S22 through chat: a policy deadline and reminder on write_note, the session
 * service and the binding as real processes, the platform's fake API. Time is moved, never
 * waited for: the session service restarts with the test-only TOLLGATE_TEST_CLOCK_OFFSET_MS
 * an hour, then a day, ahead, so each timer is due when the new process's poller first looks
 * (and each restart is one the timers must survive).
 */
const POLICY = `
tools:
  echo: { mode: auto }
  write_note: { mode: approval, deadline: 24h, remind: [1h], onDeadline: expire }
`;
const HOUR = 3_600_000;

/** A requester each platform knows by its own kind of id, and the mention it must render. */
const REQUESTERS: Record<Platform, { person: Person; mention: string }> = {
  slack: { person: { id: 'U0S22ADA', displayName: 'ada' }, mention: '<@U0S22ADA>' },
  discord: {
    person: { id: '412345678901234567', displayName: 'ada' },
    mention: '<@412345678901234567>',
  },
  mattermost: { person: alice, mention: `@${alice.displayName}` },
};

const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];

describe.each(platforms)(
  'S22 — a deadline with a reminder, whole system through %s',
  (platform) => {
    let driver: PlatformDriver;
    let session: SessionServiceFixture;
    let binding: BindingFixture;
    const policyFile = join(tmpdir(), `${uniqueToken('s22policy')}.yaml`);
    const { person, mention } = REQUESTERS[platform];

    beforeAll(async () => {
      writeFileSync(policyFile, POLICY);
      driver = CONTRACT_DRIVERS[platform]!();
      await driver.start();
      const prefix = uniqueToken(`d${platform}`).slice(0, 24);
      session = await SessionServiceFixture.create(
        `d${platform}ss`,
        { TOOL_POLICY_FILE: policyFile },
        { prefix },
      );
      binding = await BindingFixture.create(
        `${platform}-binding`,
        `d${platform}b`,
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

    /** The session service again, its clock `offsetMs` ahead of the wall clock. */
    const restartAhead = async (offsetMs: number) => {
      await session.stop();
      await session.start({ TOLLGATE_TEST_CLOCK_OFFSET_MS: String(offsetMs) });
    };

    const reminders = (conversation: Conversation) =>
      driver
        .messagesIn(conversation)
        .filter((m: ChatMessageView) => m.buttons.length === 0 && m.text.includes('Reminder'));

    it('S22 the reminder is a thread reply mentioning the requester; the deadline expires the prompt "deadline passed"', async () => {
      const conversation = driver.freshConversation();
      const said = await driver.say(
        binding.url,
        conversation,
        '!write_note {"text":"s22"}',
        person,
      );
      expect(said.status).toBe(200);
      const posted = await waitFor('the prompt', () =>
        driver.messagesIn(conversation).find((m) => m.buttons.length > 0),
      );

      await restartAhead(HOUR + 60_000);
      const [reminder] = await waitFor('the reminder', () => {
        const found = reminders(conversation);
        return found.length > 0 && found;
      });
      expect(reminder.text).toContain(mention);
      expect(reminder.text).toContain('write_note');
      expect(reminder.messageId).not.toBe(posted.messageId);

      await restartAhead(24 * HOUR + 60_000);
      const expired = await waitFor('the prompt expired', () =>
        driver
          .messagesIn(conversation)
          .find(
            (m) =>
              m.messageId === posted.messageId &&
              m.buttons.length === 0 &&
              m.text.includes('deadline passed'),
          ),
      );
      expect(expired.text).toContain('expired');
      await waitFor('the batch reply', () =>
        driver
          .messagesIn(conversation)
          .find((m) => m.text.includes('write_note: expired (deadline passed)')),
      );

      // Two restarts later the reminder was still posted once, and nothing ran.
      expect(reminders(conversation)).toHaveLength(1);
      const journal = await session.journal(deriveSessionId(conversation));
      expect(journal.filter((e) => e.type === 'ToolApprovalReminded')).toHaveLength(1);
      expect(journal.filter((e) => e.type === 'ToolExecutionStarted')).toEqual([]);
    });
  },
);
