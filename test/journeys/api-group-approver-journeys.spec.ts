import {
  type ApprovalRequest,
  type Conversation,
  type Person,
  type Platform,
} from '@tollgate/protocol';
import type { DiscordDriver } from '../contract/drivers/discord.driver';
import type { MattermostDriver } from '../contract/drivers/mattermost.driver';
import type { SlackDriver } from '../contract/drivers/slack.driver';
import type { ChatMessageView, PlatformDriver } from '../contract/platform-driver';
import type { BindingFixture } from '../support/binding.fixture';
import { DecisionLog } from '../support/decisions';
import { startJourneySystem, type JourneySystem } from '../support/journey-system.fixture';
import type { SessionServiceFixture } from '../support/session-service.fixture';
import { waitFor } from '../support/wait-for';
import { apiApprovalRequest, newClientId } from '../support/api-approval-requests';

/**
 * (process) G1 for the approval API: an outside agent's request names a platform group as its
 * approvers (`approverGroups`, as approval-api publishes a body's `{group, name}`) — a Slack
 * user group, a Discord role, a Mattermost group. The binding resolves its members through the
 * platform's stand-in when it posts the prompt, as for a tool policy's group; Bob is in "ops",
 * Carol is not. The decision is read from `<PREFIX>_DECISION` as approval-api reads it.
 */
const platforms: Platform[] = ['slack', 'discord', 'mattermost'];

const GROUPS: Record<Platform, string> = {
  slack: 'S0APIOPS',
  discord: '1300000000000000088',
  mattermost: 'apiopsgroup000000000000000',
};

const PEOPLE: Record<Platform, { alice: Person; bob: Person; carol: Person }> = {
  slack: {
    alice: { id: 'U_ALICE', displayName: 'Alice' },
    bob: { id: 'U_BOB', displayName: 'Bob' },
    carol: { id: 'U_CAROL', displayName: 'Carol' },
  },
  discord: {
    alice: { id: '412345678901234561', displayName: 'Alice' },
    bob: { id: '412345678901234562', displayName: 'Bob' },
    carol: { id: '412345678901234563', displayName: 'Carol' },
  },
  mattermost: {
    alice: { id: 'U_ALICE', displayName: 'Alice' },
    bob: { id: 'U_BOB', displayName: 'Bob' },
    carol: { id: 'U_CAROL', displayName: 'Carol' },
  },
};

describe.each(platforms)(
  'G1 — an API approval with a platform group as its approvers, through %s',
  (platform) => {
    const group = GROUPS[platform];
    const { alice, bob, carol } = PEOPLE[platform];
    let system: JourneySystem | undefined;
    let driver: PlatformDriver;
    let session: SessionServiceFixture;
    let binding: BindingFixture;
    let decisions: DecisionLog;

    beforeAll(async () => {
      system = await startJourneySystem(platform, 'ag');
      ({ driver, session, binding } = system);
      decisions = await DecisionLog.open(session.nc, session.prefix);
    });

    afterAll(async () => {
      await decisions?.close();
      await system?.dispose();
    });

    /** The platform's own group, as its admin set it up: Bob in it, Alice and Carol not. */
    function setGroup(conversation: Conversation): void {
      if (platform === 'slack') (driver as SlackDriver).fake.setUsergroup(group, [bob.id]);
      if (platform === 'discord') {
        const { fake } = driver as DiscordDriver;
        for (const person of [alice, bob, carol]) {
          fake.setGuildMember(person.id, person.id === bob.id ? [group] : []);
        }
      }
      if (platform === 'mattermost') {
        const { fake } = driver as MattermostDriver;
        fake.setGroup(group, [bob.id]);
        // Mattermost signs no click: the binding asks whether the clicker is in the channel.
        fake.addChannelMembers(conversation.channelId, [bob.id, carol.id]);
        for (const person of [bob, carol]) fake.setUsername(person.id, person.displayName!);
      }
    }

    async function prompted(): Promise<{ request: ApprovalRequest; posted: ChatMessageView }> {
      const conversation = driver.freshConversation();
      setGroup(conversation);
      const request = apiApprovalRequest(conversation, newClientId(), [], {
        approverGroups: [{ id: group, name: 'ops' }],
        onBehalfOf: alice,
      });
      await session.send(request);
      const posted = await waitFor('the prompt', () =>
        driver.messagesIn(conversation).find((m) => m.buttons.length > 0),
      );
      await binding.promptTracked(request.sessionId);
      return { request, posted };
    }

    const click = async (posted: ChatMessageView, label: string, who: Person) => {
      const button = posted.buttons.find((b) => b.label === label)!;
      expect((await driver.click(binding.url, posted, button, who)).status).toBe(200);
    };

    it(`G1 API group ${platform}: a non-member's click is refused privately and decides nothing; a member's click approves`, async () => {
      const { request, posted } = await prompted();
      expect(posted.text).toContain('members of ops');
      // Resolved through the platform when posted, and journaled with the prompt.
      expect(await binding.approverMembers(request.sessionId)).toEqual({ [group]: [bob.id] });

      const before = driver.notices().length;
      await click(posted, 'Approve once', carol);
      const notice = await waitFor(`a private notice to ${carol.id}`, () =>
        driver
          .notices()
          .slice(before)
          .find((n) => n.userId === carol.id),
      );
      expect(notice.text).toContain('Only the approvers named on this request');
      await waitFor('the refusal journaled', async () =>
        (await session.journal(request.sessionId)).find(
          (e) => e.type === 'ToolApprovalRefused' && e.data.reason === 'wrong_requester',
        ),
      );
      expect(decisions.of(request.approvalId)).toEqual([]);
      const still = driver
        .messagesIn(request.conversation)
        .find((m) => m.messageId === posted.messageId)!;
      expect(still.buttons.map((b) => b.label)).toContain('Approve once');

      await click(still, 'Approve once', bob);
      expect(await decisions.waitFor(request.approvalId)).toMatchObject({
        status: 'approved',
        decision: { option: 'approve_once', via: 'click', by: { platform, id: bob.id } },
      });
    });

    it(`G1 API group ${platform}: the one it is on behalf of is no member and cannot approve; a member's deny decides denied`, async () => {
      const { request, posted } = await prompted();
      await click(posted, 'Approve once', alice);
      await waitFor('the refusal journaled', async () =>
        (await session.journal(request.sessionId)).find(
          (e) =>
            e.type === 'ToolApprovalRefused' &&
            (e.data.sender as { id?: string } | undefined)?.id === alice.id,
        ),
      );
      expect(decisions.of(request.approvalId)).toEqual([]);
      await click(posted, 'Deny', bob);
      expect(await decisions.waitFor(request.approvalId)).toMatchObject({
        status: 'denied',
        decision: { option: 'deny', by: { id: bob.id } },
      });
    });
  },
);
