import type { ApprovalRequest } from '@tollgate/protocol';
import {
  approverGrantsToRead,
  decideApprovalRequest,
  type ReadApproverGrants,
} from './domain/api-approval-request.decider';
import {
  type ApiGrantCover,
  apiGrantCover,
  type ApproverGrantFound,
} from './domain/api-grant-cover';
import type { SessionDeps } from './domain/session-deps';
import type { SessionRecorder } from './domain/session-recorder';
import type { ToolGrants } from './domain/tool-grants.port';

/**
 * The shell of an API approval request (A2): reads what the decider asks for (the approvers'
 * "Always allow"), takes a limited grant's use (G3), and hands the grant that covers it to the
 * decision, which then waits on nothing.
 */
export async function requestApproval(
  recorder: SessionRecorder,
  command: ApprovalRequest,
  deps: Pick<SessionDeps, 'policy' | 'grants'>,
): Promise<void> {
  const read = approverGrantsToRead(recorder.current, command, recorder.clock);
  const covered = read ? await coveringGrant(read, command, deps.grants, recorder) : undefined;
  decideApprovalRequest(recorder, command, deps.policy, covered);
}

/**
 * G3: the grant that covers the request, its use taken. A use another replica took meanwhile
 * (or a lapse since the read) leaves that approver out and the next one is tried; none: asked.
 */
async function coveringGrant(
  read: ReadApproverGrants,
  command: ApprovalRequest,
  grants: ToolGrants,
  recorder: SessionRecorder,
): Promise<ApiGrantCover | undefined> {
  let found = await readApproverGrants(read, grants, recorder);
  for (;;) {
    const cover = apiGrantCover(read, command, found);
    if (cover?.claim === undefined) return cover;
    const usesLeft = await recorder.claimGrantUse(cover.claim);
    if (usesLeft !== undefined) return { ...cover, use: { ...cover.use, usesLeft } };
    found = found.filter((f) => f.approverId !== cover.approverId);
  }
}

/**
 * Read in the decision's own transaction (D2): a second pooled connection per decision could
 * wait for the one its own decision holds. Every approver's grant in force is read (at most 20),
 * since a grant whose scope does not cover these arguments leaves the next approver's to try.
 */
async function readApproverGrants(
  read: ReadApproverGrants,
  grants: ToolGrants,
  recorder: SessionRecorder,
): Promise<ApproverGrantFound[]> {
  return recorder.readThrough(async (connection) => {
    const found: ApproverGrantFound[] = [];
    for (const approverId of read.approverIds) {
      if (!grants.alwaysGrant) {
        const held = await grants.isAlwaysAllowed(
          read.conversation,
          approverId,
          read.tool,
          read.clientId,
          connection,
        );
        if (held) return [{ approverId, grant: 'blanket' }];
        continue;
      }
      const grant = await grants.alwaysGrant(
        read.conversation,
        approverId,
        read.tool,
        new Date(read.now),
        connection,
        read.clientId,
      );
      if (grant) found.push({ approverId, grant });
    }
    return found;
  });
}
