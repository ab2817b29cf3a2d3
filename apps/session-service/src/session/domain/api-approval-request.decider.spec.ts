import {
  anApprovalRequest,
  approvalId,
  clientId,
} from '../../../../../libs/protocol/src/testing/approval-fixtures';
import { approverGrantsToRead, decideApprovalRequest } from './api-approval-request.decider';
import { AgentSessionGiven } from './testing/agent-session-given';

const ADA = { id: 'U0001', displayName: 'Ada' };
const BOB = { id: 'U0002', displayName: 'Bob' };

/** The "when": the pure decider alone, given what the shell read. No database, no port. */
function whenDecided(given: AgentSessionGiven, holder: string | undefined) {
  const command = anApprovalRequest({ approvers: [ADA, BOB] });
  const cover =
    holder === undefined
      ? undefined
      : { approverId: holder, use: { kind: 'always' as const, personId: holder } };
  return given.decide((recorder) =>
    decideApprovalRequest(recorder, command, given.deps.policy, cover),
  );
}

const NOW = '2024-05-01T12:00:00.000Z';

describe('D1 the API approval request as decide(state, input) → events + the grant read as data', () => {
  it('D1 given a fresh request offering "Always allow", when the read is decided, then every approver’s grant for this client and tool is to be read', () => {
    const given = new AgentSessionGiven();
    const command = anApprovalRequest({ approvers: [ADA, BOB] });

    expect(approverGrantsToRead(given.state, command, NOW)).toEqual({
      type: 'ReadApproverGrants',
      conversation: command.conversation,
      tool: command.tool,
      clientId,
      approverIds: [ADA.id, BOB.id],
      now: NOW,
    });
  });

  it('D1 given a quorum, an approval already known, or no "Always allow" offered, when the read is decided, then nothing is read', async () => {
    const given = new AgentSessionGiven();
    const quorum = anApprovalRequest({ approvers: [ADA, BOB], quorum: 2 });
    const noAlways = anApprovalRequest({ approvers: [ADA], options: ['approve_once', 'deny'] });
    await given.request({ approvers: [ADA, BOB] });
    const repeated = anApprovalRequest({ approvers: [ADA, BOB] });

    expect(approverGrantsToRead(given.state, quorum, NOW)).toBeUndefined();
    expect(approverGrantsToRead(given.state, noAlways, NOW)).toBeUndefined();
    expect(approverGrantsToRead(given.state, repeated, NOW)).toBeUndefined();
  });

  it('D1 given the shell found Bob holding an "Always allow", when the request is decided, then it is approved via grant by Bob and no prompt is shown', async () => {
    const decided = await whenDecided(new AgentSessionGiven(), BOB.id);

    expect(decided.events.map((e) => e.type)).toEqual([
      'SessionStarted',
      'ApiApprovalRequested',
      'ApiApprovalDecided',
    ]);
    expect(decided.outputs).toEqual([]);
    expect(decided.decisions).toEqual([
      expect.objectContaining({
        approvalId,
        status: 'approved',
        decision: expect.objectContaining({
          option: 'approve_always',
          via: 'grant',
          by: expect.objectContaining({ id: BOB.id }),
        }),
      }),
    ]);
  });

  it('D1 given the shell found no holder, when the request is decided, then the approvers are prompted', async () => {
    const decided = await whenDecided(new AgentSessionGiven(), undefined);

    expect(decided.events.map((e) => e.type)).toEqual(['SessionStarted', 'ApiApprovalRequested']);
    expect(decided.outputs.map((o) => o.type)).toEqual(['ToolInteractionRequest']);
    expect(decided.decisions).toEqual([]);
  });
});
