import { type ApprovalRequest, type Conversation, type Platform } from '@tollgate/protocol';
import { CONTRACT_DRIVERS } from '../contract/drivers';
import type { ChatMessageView } from '../contract/platform-driver';
import { alice, bob } from '../support/commands';
import { decidingJourney } from '../support/deciding-journey';
import { waitFor } from '../support/wait-for';
import { apiApprovalRequest, newClientId } from '../support/api-approval-requests';

/**
 * (process) An outside agent's approval through chat, on every platform: approval-api's
 * commands published on `<prefix>.cmd.api.…` (as its NATS user would), the session service and
 * the binding as real processes, people clicking and typing on the platform's stand-in, and
 * the decision read from `<PREFIX>_DECISION` as approval-api reads it.
 */
const platforms = Object.keys(CONTRACT_DRIVERS) as Platform[];

const approval = (route: Conversation): ApprovalRequest =>
  apiApprovalRequest(route, newClientId(), [alice]);

describe.each(platforms)(
  'A2 — an outside agent’s approval, whole system through %s',
  (platform) => {
    const journey = decidingJourney(platform, 'a');

    const shown = (
      conversation: Conversation,
      what: string,
      test: (m: ChatMessageView) => boolean,
    ) => waitFor(what, () => journey.driver.messagesIn(conversation).find(test));

    async function prompted(request: ApprovalRequest): Promise<ChatMessageView> {
      await journey.session.send(request);
      const posted = await shown(request.conversation, 'the prompt', (m) => m.buttons.length > 0);
      // Only a journaled post can be answered: a person answers what the binding has recorded.
      await journey.binding.postJournaled(posted.messageId);
      return posted;
    }

    it('A2 the prompt shows what will run; a non-approver’s click is refused and decides nothing; the approver’s click approves once', async () => {
      const request = approval(journey.driver.freshConversation());
      const posted = await prompted(request);
      // A4: the tool, the arguments as given and the hash, made inert by the binding.
      expect(posted.text).toContain('Bash');
      expect(posted.text).toContain('rm -rf build');
      expect(posted.text).toContain(request.argumentsHash.slice(0, 19));
      const approve = posted.buttons.find((b) => b.label === 'Approve once')!;

      const noticesBefore = journey.driver.notices().length;
      expect((await journey.driver.click(journey.binding.url, posted, approve, bob)).status).toBe(
        200,
      );
      await waitFor('the refusal, to bob alone', () =>
        journey.driver
          .notices()
          .slice(noticesBefore)
          .find((n) => n.userId === bob.id && /approvers/i.test(n.text)),
      );
      expect(journey.decisions.of(request.approvalId)).toEqual([]);

      expect((await journey.driver.click(journey.binding.url, posted, approve, alice)).status).toBe(
        200,
      );
      expect(await journey.decisions.waitFor(request.approvalId)).toMatchObject({
        status: 'approved',
        decision: { option: 'approve_once', via: 'click', by: { platform, id: alice.id } },
      });
      const resolved = await shown(
        request.conversation,
        'the resolved prompt',
        (m) => m.messageId === posted.messageId && m.buttons.length === 0,
      );
      expect(resolved.text).toContain('Approve once');
    });

    it('A2 the approver types "deny" in the conversation: denied via text', async () => {
      const request = approval(journey.driver.freshConversation());
      await prompted(request);
      expect(
        (await journey.driver.say(journey.binding.url, request.conversation, 'deny', alice)).status,
      ).toBe(200);
      expect(await journey.decisions.waitFor(request.approvalId)).toMatchObject({
        status: 'denied',
        decision: { option: 'deny', via: 'text', by: { id: alice.id } },
      });
    });

    it('A2 the agent cancels: the prompt loses its buttons with "Withdrawn by the agent"', async () => {
      const request = approval(journey.driver.freshConversation());
      const posted = await prompted(request);
      await journey.session.send({
        type: 'ApprovalCancel',
        v: 1,
        id: `api-cancel:${request.approvalId}`,
        sessionId: request.sessionId,
        conversation: request.conversation,
        occurredAt: new Date().toISOString(),
        approvalId: request.approvalId,
        clientId: request.clientId,
      });
      await shown(
        request.conversation,
        'the withdrawn prompt',
        (m) =>
          m.messageId === posted.messageId &&
          m.buttons.length === 0 &&
          m.text.includes('Withdrawn by the agent'),
      );
      expect(await journey.decisions.waitFor(request.approvalId)).toMatchObject({
        status: 'cancelled',
        decision: null,
      });
    });

    it('G1 API quorum 2: one approval is tallied in place and decides nothing; the second, typed, decides approved with both approvers in the decision event', async () => {
      const request = apiApprovalRequest(
        journey.driver.freshConversation(),
        newClientId(),
        [alice, bob],
        {
          quorum: 2,
        },
      );
      const posted = await prompted(request);
      expect(posted.text).toContain('0 of 2 approvals');
      const approve = posted.buttons.find((b) => b.label === 'Approve once')!;
      expect((await journey.driver.click(journey.binding.url, posted, approve, alice)).status).toBe(
        200,
      );
      const tallied = await shown(
        request.conversation,
        'the tally',
        (m) => m.messageId === posted.messageId && m.text.includes('1 of 2 approvals'),
      );
      expect(tallied.buttons.map((b) => b.label)).toEqual(posted.buttons.map((b) => b.label));
      expect(journey.decisions.of(request.approvalId)).toEqual([]);

      // A typed answer counts like a click with the tally half full.
      expect(
        (await journey.driver.say(journey.binding.url, request.conversation, 'approve', bob))
          .status,
      ).toBe(200);
      const decided = await journey.decisions.waitFor(request.approvalId);
      expect(decided).toMatchObject({
        status: 'approved',
        decision: {
          option: 'approve_once',
          via: 'text',
          by: { platform, id: bob.id },
          approvals: [
            { by: { platform, id: alice.id }, at: expect.any(String) },
            { by: { platform, id: bob.id }, at: expect.any(String) },
          ],
        },
      });
      expect(journey.decisions.of(request.approvalId)).toHaveLength(1);
    });

    it('A2 the session service is SIGKILLed with the approval pending: the prompt says "still valid" and a click decides', async () => {
      const request = approval(journey.driver.freshConversation());
      const posted = await prompted(request);
      await journey.session.restart('SIGKILL');
      const refreshed = await shown(
        request.conversation,
        'the refreshed prompt',
        (m) => m.messageId === posted.messageId && m.text.includes('still valid'),
      );
      const approve = refreshed.buttons.find((b) => b.label === 'Approve once')!;
      expect(
        (await journey.driver.click(journey.binding.url, refreshed, approve, alice)).status,
      ).toBe(200);
      expect(await journey.decisions.waitFor(request.approvalId)).toMatchObject({
        status: 'approved',
        decision: { via: 'click' },
      });
      expect(journey.decisions.of(request.approvalId)).toHaveLength(1);
    });
  },
);
