import {
  anApprovalRequest,
  clientId,
} from '../../../../../libs/protocol/src/testing/approval-fixtures';
import { approverGrantsToRead } from './api-approval-request.decider';
import { apiGrantCover } from './api-grant-cover';
import { AgentSessionGiven } from './testing/agent-session-given';

const ADA = { id: 'U0001', displayName: 'Ada' };
const BOB = { id: 'U0002', displayName: 'Bob' };
const NOW = '2024-05-01T12:00:00.000Z';
const GIVEN_AT = '2024-05-01T11:00:00.000Z';

/** The read the decider asks for, for a request with these arguments. */
function readFor(args: Record<string, string>) {
  const command = anApprovalRequest({ approvers: [ADA, BOB], arguments: args });
  const read = approverGrantsToRead(new AgentSessionGiven().state, command, NOW);
  if (!read) throw new Error('nothing to read');
  return { command, read };
}

const LS_ONLY = { command: { pattern: 'ls .*' } };

describe('G3 the grant that covers an API approval, pure', () => {
  it('G3 API a scoped grant covers arguments within its scope and not others; the next approver’s may', () => {
    const inside = readFor({ command: 'ls /srv' });
    expect(
      apiGrantCover(inside.read, inside.command, [
        { approverId: ADA.id, grant: { grantedAt: GIVEN_AT, scope: LS_ONLY } },
      ]),
    ).toEqual({
      approverId: ADA.id,
      use: { kind: 'always', personId: ADA.id, grantedAt: GIVEN_AT, scope: LS_ONLY },
    });
    const outside = readFor({ command: 'rm -rf /srv' });
    expect(
      apiGrantCover(outside.read, outside.command, [
        { approverId: ADA.id, grant: { grantedAt: GIVEN_AT, scope: LS_ONLY } },
      ]),
    ).toBeUndefined();
    expect(
      apiGrantCover(outside.read, outside.command, [
        { approverId: ADA.id, grant: { grantedAt: GIVEN_AT, scope: LS_ONLY } },
        { approverId: BOB.id, grant: { grantedAt: GIVEN_AT } },
      ]),
    ).toMatchObject({ approverId: BOB.id });
  });

  it('G3 API a grant with uses covers only through a claim for this client; a scope this version cannot read covers nothing', () => {
    const { command, read } = readFor({ command: 'ls /srv' });
    const cover = apiGrantCover(read, command, [
      { approverId: ADA.id, grant: { grantedAt: GIVEN_AT, usesLeft: 2, expiresAt: NOW } },
    ]);
    expect(cover?.claim).toEqual({
      platform: command.conversation.platform,
      workspaceId: command.conversation.workspaceId,
      personId: ADA.id,
      toolName: command.tool,
      grantedAt: GIVEN_AT,
      now: NOW,
      clientId,
    });
    expect(
      apiGrantCover(read, command, [
        { approverId: ADA.id, grant: { grantedAt: GIVEN_AT, scope: { command: { glob: '*' } } } },
      ]),
    ).toBeUndefined();
  });
});
