import { type ApprovalRequest, type Person, type Platform } from '@tollgate/protocol';
import type { ChatMessageView } from '../contract/platform-driver';
import { GROUP_CAST, setPlatformGroup } from '../support/platform-groups';
import { decidingJourney } from '../support/deciding-journey';
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

describe.each(platforms)(
  'G1 — an API approval with a platform group as its approvers, through %s',
  (platform) => {
    const group = GROUPS[platform];
    const { alice, bob, carol } = GROUP_CAST[platform];
    const journey = decidingJourney(platform, 'ag');

    async function prompted(): Promise<{ request: ApprovalRequest; posted: ChatMessageView }> {
      const conversation = journey.driver.freshConversation();
      setPlatformGroup(platform, journey.driver, group, [bob], conversation);
      const request = apiApprovalRequest(conversation, newClientId(), [], {
        approverGroups: [{ id: group, name: 'ops' }],
        onBehalfOf: alice,
      });
      await journey.session.send(request);
      const posted = await waitFor('the prompt', () =>
        journey.driver.messagesIn(conversation).find((m) => m.buttons.length > 0),
      );
      await journey.binding.postJournaled(posted.messageId);
      return { request, posted };
    }

    const click = async (posted: ChatMessageView, label: string, who: Person) => {
      const button = posted.buttons.find((b) => b.label === label)!;
      expect((await journey.driver.click(journey.binding.url, posted, button, who)).status).toBe(
        200,
      );
    };

    it(`G1 API group ${platform}: a non-member's click is refused privately and decides nothing; a member's click approves`, async () => {
      const { request, posted } = await prompted();
      expect(posted.text).toContain('members of ops');
      // Resolved through the platform when posted, and journaled with the prompt.
      expect(await journey.binding.approverMembers(request.sessionId)).toEqual({
        [group]: [bob.id],
      });

      const before = journey.driver.notices().length;
      await click(posted, 'Approve once', carol);
      const notice = await waitFor(`a private notice to ${carol.id}`, () =>
        journey.driver
          .notices()
          .slice(before)
          .find((n) => n.userId === carol.id),
      );
      expect(notice.text).toContain('Only the approvers named on this request');
      await waitFor('the refusal journaled', async () =>
        (await journey.session.journal(request.sessionId)).find(
          (e) => e.type === 'ToolApprovalRefused' && e.data.reason === 'wrong_requester',
        ),
      );
      expect(journey.decisions.of(request.approvalId)).toEqual([]);
      const still = journey.driver
        .messagesIn(request.conversation)
        .find((m) => m.messageId === posted.messageId)!;
      expect(still.buttons.map((b) => b.label)).toContain('Approve once');

      await click(still, 'Approve once', bob);
      expect(await journey.decisions.waitFor(request.approvalId)).toMatchObject({
        status: 'approved',
        decision: { option: 'approve_once', via: 'click', by: { platform, id: bob.id } },
      });
    });

    it(`G1 API group ${platform}: the one it is on behalf of is no member and cannot approve; a member's deny decides denied`, async () => {
      const { request, posted } = await prompted();
      await click(posted, 'Approve once', alice);
      await waitFor('the refusal journaled', async () =>
        (await journey.session.journal(request.sessionId)).find(
          (e) =>
            e.type === 'ToolApprovalRefused' &&
            (e.data.sender as { id?: string } | undefined)?.id === alice.id,
        ),
      );
      expect(journey.decisions.of(request.approvalId)).toEqual([]);
      await click(posted, 'Deny', bob);
      expect(await journey.decisions.waitFor(request.approvalId)).toMatchObject({
        status: 'denied',
        decision: { option: 'deny', by: { id: bob.id } },
      });
    });
  },
);
