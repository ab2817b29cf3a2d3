import type { EntityManager } from 'typeorm';
import type { GrantClaim } from '../session/domain/tool-grants.port';

/**
 * G3: takes one use of a limited "Always allow" inside the decision's open transaction, so it
 * commits with the journal entry of the call it covers, or not at all. The row lock it takes
 * makes a second replica's claim wait for this commit and then find the count it left: two
 * racing for the last use, exactly one gets it. The grant must still be the one that was read
 * (`granted_at`), in force at `now` and not revoked. Returns the uses left after this one.
 */
export async function claimGrantUse(
  manager: EntityManager,
  claim: GrantClaim,
): Promise<number | undefined> {
  // TypeORM answers an UPDATE … RETURNING with [rows, affected].
  const [rows] = await manager.query<[{ uses_left: number }[], number]>(
    `UPDATE tool_grants SET uses_left = uses_left - 1
     WHERE platform = $1 AND workspace_id = $2 AND person_id = $3 AND tool_name = $4
       AND client_id = $7 AND granted_at = $5 AND revoked_at IS NULL
       AND uses_left > 0 AND (expires_at IS NULL OR expires_at > $6)
     RETURNING uses_left`,
    [
      claim.platform,
      claim.workspaceId,
      claim.personId,
      claim.toolName,
      claim.grantedAt,
      claim.now,
      claim.clientId ?? '',
    ],
  );
  return rows[0]?.uses_left;
}
