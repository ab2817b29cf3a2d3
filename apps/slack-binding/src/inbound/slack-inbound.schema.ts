import { optional, platformIdSchema } from '@tollgate/binding-core';
import { z } from 'zod';

/*
 * The fields of Slack's payloads the binding reads, checked for type before anything reads
 * them. Slack sends many more; those are dropped, never refused, so a new Slack field cannot
 * break the binding.
 */

const id = optional(platformIdSchema);
const text = optional(z.string());

/** The Events API envelope; `event` is read further only for the event types that count. */
export const slackEventEnvelopeSchema = z.object({
  type: z.string(),
  challenge: text,
  team_id: id,
  event: z.unknown().optional(),
});

/** Any event's type, read before its shape: most event types are only ignored. */
export const slackEventTypeSchema = z.object({ type: z.string() });

/** `message` and `app_mention` events: the only ones Tollgate reads beyond their type. */
export const slackMessageEventSchema = z.object({
  type: z.string(),
  subtype: text,
  user: id,
  bot_id: id,
  text,
  ts: id,
  thread_ts: id,
  channel: id,
  channel_type: text,
});

/** An interaction payload's type, read before its shape: only `block_actions` goes further. */
export const slackInteractionTypeSchema = z.object({ type: z.string() });

export const slackBlockActionsSchema = z.object({
  type: z.literal('block_actions'),
  team: optional(z.object({ id })),
  user: optional(z.object({ id, name: text, username: text })),
  channel: optional(z.object({ id })),
  container: optional(z.object({ message_ts: id, channel_id: id, thread_ts: id })),
  message: optional(z.object({ ts: id, thread_ts: id })),
  actions: optional(z.array(z.object({ action_id: text, value: text, action_ts: id }))),
  response_url: text,
  trigger_id: text,
});

export type SlackBlockActions = z.infer<typeof slackBlockActionsSchema>;

/** G2: the submission of the "Edit & approve" modal; each input's value by block id. */
export const slackViewSubmissionSchema = z.object({
  type: z.literal('view_submission'),
  team: optional(z.object({ id })),
  user: optional(z.object({ id, name: text, username: text })),
  view: z.object({
    id,
    callback_id: text,
    private_metadata: text,
    state: optional(
      z.object({
        values: z.record(
          z.string(),
          z.record(z.string(), z.object({ value: optional(z.string().nullable()) })),
        ),
      }),
    ),
  }),
});

export type SlackViewSubmission = z.infer<typeof slackViewSubmissionSchema>;
