import type { ApprovalRequest } from '@tollgate/protocol';
import {
  approverGrantsToRead,
  decideApprovalRequest,
  type ReadApproverGrants,
} from './domain/api-approval-request.decider';
import type { SessionDeps } from './domain/session-deps';
import type { SessionRecorder } from './domain/session-recorder';
import type { ToolGrants } from './domain/tool-grants.port';

/**
 * The shell of an API approval request (A2): reads what the decider asks for (the approvers'
 * "Always allow") and hands it to the decision, which then waits on nothing.
 */
export async function requestApproval(
  recorder: SessionRecorder,
  command: ApprovalRequest,
  deps: Pick<SessionDeps, 'policy' | 'grants'>,
): Promise<void> {
  const read = approverGrantsToRead(recorder.current, command);
  const holders = read ? await readApproverGrants(read, deps.grants, recorder) : [];
  decideApprovalRequest(recorder, command, deps.policy, holders);
}

/**
 * Read in the decision's own transaction (D2): a second pooled connection per decision could
 * wait for the one its own decision holds. Stops at the first holder: the first one decides.
 */
async function readApproverGrants(
  read: ReadApproverGrants,
  grants: ToolGrants,
  recorder: SessionRecorder,
): Promise<string[]> {
  return recorder.readThrough(async (connection) => {
    for (const approverId of read.approverIds) {
      const held = await grants.isAlwaysAllowed(
        read.conversation,
        approverId,
        read.tool,
        read.clientId,
        connection,
      );
      if (held) return [approverId];
    }
    return [];
  });
}
