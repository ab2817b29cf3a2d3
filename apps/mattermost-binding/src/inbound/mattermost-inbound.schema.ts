import { optional, platformIdSchema } from '@tollgate/binding-core';
import { z } from 'zod';

/*
 * The fields of Mattermost's requests the binding reads, checked for type before anything
 * reads them. Mattermost sends more; those are dropped, never refused. A form field given
 * twice, or with brackets in its name, arrives as an array or an object: refused here.
 */

const id = optional(platformIdSchema);
const text = optional(z.string());

/** What Mattermost POSTs to a button's `integration.url` (PostActionIntegrationRequest). */
export const mattermostActionSchema = z.object({
  user_id: id,
  user_name: text,
  channel_id: id,
  team_id: id,
  post_id: id,
  trigger_id: id,
  type: text,
  context: z.unknown().optional(),
});

export type MattermostAction = z.infer<typeof mattermostActionSchema>;

/** G2: what Mattermost POSTs to a dialog's `url` on submit (SubmitDialogRequest). */
export const mattermostDialogSubmissionSchema = z.object({
  type: text,
  callback_id: optional(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/)),
  state: text,
  user_id: id,
  channel_id: id,
  team_id: id,
  submission: optional(z.record(z.string(), z.unknown())),
  cancelled: optional(z.boolean()),
});

export type MattermostDialogSubmission = z.infer<typeof mattermostDialogSubmissionSchema>;

/** A slash command or an outgoing webhook; the token is checked before this is read. */
export const mattermostCommandSchema = z.object({
  token: z.string(),
  team_id: id,
  channel_id: id,
  user_id: id,
  user_name: text,
  command: text,
  text,
  trigger_id: id,
  trigger_word: text,
  post_id: id,
  root_id: id,
});

export type MattermostCommand = z.infer<typeof mattermostCommandSchema>;
