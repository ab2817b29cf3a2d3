import { MAX_GROUP_MEMBERS } from '@tollgate/protocol';
import type { PromptClaim, PromptJournal } from '../journal/prompt-journal.port';
import type { PlatformAdapter } from '../platform-adapter.port';

/** A prompt names approver groups on a platform whose binding cannot read them. */
export class ApproverGroupsUnsupported extends Error {
  constructor(platform: string) {
    super(`the ${platform} binding cannot resolve approver groups`);
  }
}

/**
 * G1: a prompt naming approver groups has their members read from the platform just before
 * it is posted, and journaled with it, so every later answer is judged by the same members.
 * A failure is the post's: retried when transient, undeliverable when the group is unknown.
 */
export async function resolveApproverGroups(
  deps: { readonly adapter: PlatformAdapter; readonly prompts: PromptJournal },
  claim: Extract<PromptClaim, { kind: 'claimed' }>,
): Promise<void> {
  const groups = claim.decision.view.request.approverGroups;
  if (groups === undefined) return;
  const { adapter, prompts } = deps;
  if (adapter.resolveApproverGroup === undefined) {
    throw new ApproverGroupsUnsupported(adapter.platform);
  }
  const members: Record<string, readonly string[]> = {};
  for (const group of groups) {
    const ids = await adapter.resolveApproverGroup(claim.target.conversation, group.id);
    members[group.id] = ids.slice(0, MAX_GROUP_MEMBERS);
  }
  await prompts.recordApproverMembers(claim.lease, members);
}
