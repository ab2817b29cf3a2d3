import { optional, platformIdSchema } from '@tollgate/binding-core';
import { z } from 'zod';

/*
 * The fields of an interaction the binding reads, checked for type before anything reads
 * them. Discord sends many more; those are dropped, never refused, so a new Discord field
 * cannot break the binding. Discord sends `null` for several "none"s (a nick, a global name).
 */

const id = optional(platformIdSchema);
const text = optional(z.string());
/** Interaction tokens run longer than ids; they end up in webhook URLs, hence ASCII only. */
const token = optional(z.string().regex(/^[\x21-\x7e]{0,1000}$/, 'must be printable ASCII'));

const userSchema = z.object({ id, username: text, global_name: text });

export const discordInteractionSchema = z.object({
  id,
  type: z.int(),
  token,
  application_id: id,
  guild_id: id,
  channel_id: id,
  channel: optional(z.object({ id })),
  member: optional(z.object({ user: optional(userSchema), nick: text })),
  user: optional(userSchema),
  data: optional(
    z.object({
      name: text,
      custom_id: text,
      options: optional(
        z.array(z.object({ name: text, type: optional(z.int()), value: z.unknown().optional() })),
      ),
      /** G2: a modal submission's inputs, in action rows (or, newer, in labels). */
      components: optional(
        z.array(
          z.object({
            components: optional(z.array(z.object({ custom_id: text, value: text }))),
            component: optional(z.object({ custom_id: text, value: text })),
          }),
        ),
      ),
    }),
  ),
  message: optional(z.object({ id, channel_id: id })),
});
