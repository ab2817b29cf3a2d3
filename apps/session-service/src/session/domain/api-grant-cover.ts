import { type ApprovalRequest, checkArguments, parseArgumentScope } from '@tollgate/protocol';
import type { GrantUse } from '@tollgate/session-read-model';
import type { ReadApproverGrants } from './api-approval-request.decider';
import type { AlwaysGrantInForce, GrantClaim } from './tool-grants.port';

/** An approver's "Always allow" in force, as the shell read it (`'blanket'`: a yes/no port). */
export interface ApproverGrantFound {
  readonly approverId: string;
  readonly grant: AlwaysGrantInForce | 'blanket';
}

/** The grant that covers a request: whose, and the use it takes (with the claim, if limited). */
export interface ApiGrantCover {
  readonly approverId: string;
  readonly use: GrantUse;
  readonly claim?: GrantClaim;
}

/**
 * G3: the first approver (in the request's order) whose "Always allow" covers these arguments:
 * a blanket one, or one whose scope every argument it names lies within (a scope this version
 * cannot read covers nothing). A grant with a number of uses covers only once its use is taken
 * (`claim`), in the transaction that journals the decision; the shell asks again without that
 * approver when another replica took the last.
 */
export function apiGrantCover(
  read: ReadApproverGrants,
  command: ApprovalRequest,
  found: readonly ApproverGrantFound[],
): ApiGrantCover | undefined {
  for (const approverId of read.approverIds) {
    const grant = found.find((f) => f.approverId === approverId)?.grant;
    if (grant === undefined) continue;
    if (grant === 'blanket') return { approverId, use: { kind: 'always', personId: approverId } };
    if (grant.scope !== undefined) {
      const scope = parseArgumentScope(grant.scope);
      if (!scope.ok || !checkArguments(scope.scope, command.arguments).ok) continue;
    }
    const use: GrantUse = {
      kind: 'always',
      personId: approverId,
      grantedAt: grant.grantedAt,
      ...(grant.expiresAt === undefined ? {} : { expiresAt: grant.expiresAt }),
      ...(grant.scope === undefined ? {} : { scope: grant.scope }),
    };
    if (grant.usesLeft === undefined) return { approverId, use };
    return {
      approverId,
      use,
      claim: {
        platform: read.conversation.platform,
        workspaceId: read.conversation.workspaceId,
        personId: approverId,
        toolName: read.tool,
        grantedAt: grant.grantedAt,
        now: read.now,
        clientId: read.clientId,
      },
    };
  }
  return undefined;
}
