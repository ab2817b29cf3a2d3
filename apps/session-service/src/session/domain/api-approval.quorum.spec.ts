import { parseApprovalDecided } from '@tollgate/protocol';
import { approvalId } from '../../../../../libs/protocol/src/testing/approval-fixtures';
import type { SessionEvent } from '@tollgate/session-read-model';
import { AgentSessionGiven } from './testing/agent-session-given';
import { defaultDeps } from './testing/session-given';
import type { ToolGrants } from './tool-grants.port';

const ADA = { id: 'U0001', displayName: 'Ada' };
const BOB = { id: 'U0002', displayName: 'Bob' };
const CAROL = { id: 'U0003', displayName: 'Carol' };

/** When a counted approval was journaled, as the event says. */
function atOf(event: SessionEvent | undefined): string | undefined {
  return event?.type === 'ApiApprovalCounted' ? event.at : undefined;
}

const TWO_OF_THREE = {
  approvers: [ADA, BOB, CAROL],
  quorum: 2,
  options: ['approve_once' as const, 'approve_always' as const, 'deny' as const],
};

describe('G1 API approvals with a quorum', () => {
  it('G1 API quorum 2: the first approval is tallied and decides nothing', async () => {
    const session = new AgentSessionGiven();
    const asked = await session.request(TWO_OF_THREE);
    const [request] = asked.outputs;
    expect(request?.type === 'ToolInteractionRequest' && request.quorum).toEqual({
      required: 2,
      approvals: [],
      waitingFor: [ADA, BOB, CAROL],
    });
    // A grant option would let one approver stand in for the others later: not offered.
    expect(request?.type === 'ToolInteractionRequest' && request.options.map((o) => o.key)).toEqual(
      ['approve_once', 'deny'],
    );
    const first = await session.respond(approvalId, 'approve_once', { sender: BOB });
    expect(first.events.map((e) => e.type)).toEqual(['ApiApprovalCounted']);
    expect(first.decisions).toEqual([]);
    expect(first.outputs.map((o) => o.type === 'ToolInteractionUpdate' && o.status)).toEqual([
      'Tallied',
    ]);
  });

  it('G1 API quorum 2: the second approval decides approved, the decision event listing both approvers', async () => {
    const session = new AgentSessionGiven();
    await session.request(TWO_OF_THREE);
    const first = await session.respond(approvalId, 'approve_once', { sender: BOB });
    const again = await session.respond(approvalId, 'approve_once', { sender: BOB });
    expect(again.decisions).toEqual([]);
    expect(again.outputs.map((o) => o.type === 'ToolInteractionRejected' && o.reason)).toEqual([
      'already_answered',
    ]);
    const second = await session.respond(approvalId, 'approve_once', { sender: CAROL });
    expect(second.decisions).toHaveLength(1);
    const [decided] = second.decisions;
    expect(parseApprovalDecided(decided).ok).toBe(true);
    expect(decided).toMatchObject({
      status: 'approved',
      decision: {
        option: 'approve_once',
        by: { id: CAROL.id },
        approvals: [
          { by: { id: BOB.id, displayName: 'Bob' }, at: atOf(first.events[0]) },
          { by: { id: CAROL.id, displayName: 'Carol' }, at: atOf(second.events[0]) },
        ],
      },
    });
  });

  it('G1 API a deny after one approval vetoes: denied, naming the approval it overruled', async () => {
    const session = new AgentSessionGiven();
    await session.request(TWO_OF_THREE);
    await session.respond(approvalId, 'approve_once', { sender: ADA });
    const veto = await session.respond(approvalId, 'deny', { sender: CAROL });
    expect(veto.decisions[0]).toMatchObject({
      status: 'denied',
      decision: { option: 'deny', by: { id: CAROL.id }, approvals: [{ by: { id: ADA.id } }] },
    });
  });

  it('G1 API separateApprover: the person it is on behalf of cannot approve', async () => {
    const session = new AgentSessionGiven();
    await session.request({ approvers: [ADA, BOB], onBehalfOf: ADA, separateApprover: true });
    const own = await session.respond(approvalId, 'approve_once', { sender: ADA });
    expect(own.outputs.map((o) => o.type === 'ToolInteractionRejected' && o.reason)).toEqual([
      'own_call',
    ]);
    const other = await session.respond(approvalId, 'approve_once', { sender: BOB });
    expect(other.decisions[0]).toMatchObject({
      status: 'approved',
      decision: { by: { id: BOB.id } },
    });
  });

  it('G1 API a standing grant does not decide an approval with a quorum', async () => {
    const grants: ToolGrants = { isAlwaysAllowed: async () => true };
    const session = new AgentSessionGiven({ ...defaultDeps(), grants });
    const asked = await session.request(TWO_OF_THREE);
    expect(asked.decisions).toEqual([]);
  });

  it('G1 API a restart with one approval in refreshes the prompt with its tally', async () => {
    const session = new AgentSessionGiven();
    await session.request(TWO_OF_THREE);
    await session.respond(approvalId, 'approve_once', { sender: ADA });
    const recovered = await session.recover();
    const [refresh] = recovered.outputs;
    expect(
      refresh?.type === 'ToolInteractionUpdate' &&
        refresh.request?.quorum?.approvals.map((a) => a.by),
    ).toEqual([ADA]);
  });
});
