import type { ToolInteractionRequest } from '@tollgate/protocol';
import type { ApproverMembers } from '../journal/prompt-journal.port';

/**
 * G1: the prompt's approver groups `personId` was found in when the binding posted it, for the
 * answer's `memberOf`; undefined when none (the session then refuses an approval from someone
 * not named, `wrong_requester`). The members journaled at the post decide, never a later look.
 */
export function memberOf(
  request: Pick<ToolInteractionRequest, 'approverGroups'> | undefined,
  members: ApproverMembers | undefined,
  personId: string,
): string[] | undefined {
  if (members === undefined) return undefined;
  const named = request?.approverGroups?.map((g) => g.id);
  const found = Object.entries(members)
    .filter(
      ([group, ids]) => (named === undefined || named.includes(group)) && ids.includes(personId),
    )
    .map(([group]) => group);
  return found.length > 0 ? found : undefined;
}
