import { z } from 'zod';
import { storableIdentifier } from './storable-identifier';

/*
 * G1 (added 2026-12-01 (e)): a platform group named as an approver — a Slack user group
 * (`S…`), a Discord role (a snowflake), a Mattermost group (26 characters). The session holds
 * no platform credentials, so the binding that posts the prompt resolves its members through
 * the platform and journals them with the post; an answer then says which of the prompt's
 * groups its sender was found in (`ToolInteractionResponse.memberOf`).
 */

/** At most this many groups on one prompt. */
export const MAX_APPROVER_GROUPS = 5;

/** A resolution keeps at most this many members of one group (the rest cannot approve). */
export const MAX_GROUP_MEMBERS = 1_000;

export const approverGroupSchema = z.strictObject({
  id: storableIdentifier().min(1).max(200),
  /** What the prompt shows ("waiting for @ops"); the id when absent. */
  name: z.string().min(1).max(80).optional(),
});

export const approverGroupsSchema = z
  .array(approverGroupSchema)
  .min(1)
  .max(MAX_APPROVER_GROUPS)
  .refine((groups) => new Set(groups.map((g) => g.id)).size === groups.length, {
    message: 'must not name a group twice',
  });

/** The ids of a prompt's groups an answer's sender was found in, as resolved at the post. */
export const memberOfSchema = z
  .array(storableIdentifier().min(1).max(200))
  .min(1)
  .max(MAX_APPROVER_GROUPS);

export type ApproverGroup = z.infer<typeof approverGroupSchema>;
