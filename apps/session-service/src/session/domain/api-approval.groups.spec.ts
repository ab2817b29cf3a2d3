import { approvalId } from '../../../../../libs/protocol/src/testing/approval-fixtures';
import { AgentSessionGiven } from './testing/agent-session-given';

const ADA = { id: 'U0001', displayName: 'Ada' };
const BOB = { id: 'U0002', displayName: 'Bob' };
const CAROL = { id: 'U0003', displayName: 'Carol' };
const OPS = { id: 'S03', name: 'ops' };

/** An API request whose approvers are the members of a platform group (G1, 2026-12-01 (f)). */
const GROUP_ONLY = {
  approvers: [],
  approverGroups: [OPS],
  onBehalfOf: ADA,
  options: ['approve_once' as const, 'deny' as const],
};

describe('G1 API approvals with a platform group as the approvers', () => {
  it('G1 API group: the prompt carries the group for the binding to resolve and names it in its text', async () => {
    const session = new AgentSessionGiven();
    const asked = await session.request(GROUP_ONLY);
    const [request] = asked.outputs;
    if (request?.type !== 'ToolInteractionRequest') throw new Error('no prompt');
    expect(request.approverGroups).toEqual([OPS]);
    // No person is named: the binding's members decide, not a list of ids.
    expect(request.approvers).toBeUndefined();
    expect(request.requester).toEqual(ADA);
    expect(request.displayText).toContain('members of ops (group S03)');
  });

  it('G1 API group: a member (memberOf) decides with one click; the decision names them', async () => {
    const session = new AgentSessionGiven();
    await session.request(GROUP_ONLY);
    const answered = await session.respond(approvalId, 'approve_once', {
      sender: BOB,
      memberOf: [OPS.id],
    });
    expect(answered.decisions).toHaveLength(1);
    expect(answered.decisions[0]).toMatchObject({
      status: 'approved',
      decision: { option: 'approve_once', by: { id: BOB.id }, via: 'click' },
    });
  });

  it('G1 API group: a non-member is refused wrong_requester and nothing is decided, even the one it is on behalf of', async () => {
    const session = new AgentSessionGiven();
    await session.request(GROUP_ONLY);
    for (const [sender, memberOf] of [
      [CAROL, undefined],
      [CAROL, ['S99']],
      [ADA, undefined],
    ] as const) {
      const refused = await session.respond(approvalId, 'approve_once', {
        sender,
        ...(memberOf ? { memberOf: [...memberOf] } : {}),
      });
      expect(refused.decisions).toEqual([]);
      expect(refused.outputs.map((o) => o.type === 'ToolInteractionRejected' && o.reason)).toEqual([
        'wrong_requester',
      ]);
    }
    const decided = await session.respond(approvalId, 'deny', { sender: BOB, memberOf: [OPS.id] });
    expect(decided.decisions[0]).toMatchObject({
      status: 'denied',
      decision: { by: { id: BOB.id } },
    });
  });

  it('G1 API group: a named person beside the group still answers; a quorum counts members and names', async () => {
    const session = new AgentSessionGiven();
    await session.request({ approvers: [CAROL], approverGroups: [OPS], quorum: 2 });
    const first = await session.respond(approvalId, 'approve_once', {
      sender: BOB,
      memberOf: [OPS.id],
    });
    expect(first.events.map((e) => e.type)).toEqual(['ApiApprovalCounted']);
    const outsider = await session.respond(approvalId, 'approve_once', {
      sender: { id: 'U0009' },
    });
    expect(outsider.outputs.map((o) => o.type === 'ToolInteractionRejected' && o.reason)).toEqual([
      'wrong_requester',
    ]);
    const second = await session.respond(approvalId, 'approve_once', { sender: CAROL });
    expect(second.decisions[0]).toMatchObject({
      status: 'approved',
      decision: { approvals: [{ by: { id: BOB.id } }, { by: { id: CAROL.id } }] },
    });
  });
});
