import { z } from 'zod';

/**
 * A platform's own id (user, channel, team, ts, trigger id, interaction token). Every platform
 * spells them in printable ASCII. Refusing anything else at the door keeps ids that PostgreSQL
 * cannot store (NUL, lone surrogates) or a header cannot carry out of the journal and the
 * command subjects, where they would fail as if the database were down. `""` is allowed: some
 * platforms send it for "none" (a Mattermost root post's `root_id`).
 */
export const platformIdSchema = z
  .string()
  .regex(/^[\x21-\x7e]{0,256}$/, 'must be at most 256 printable ASCII characters');

/** Absent, or `null` where a platform sends null for "none": both read as undefined. */
export function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? undefined);
}

export type InboundRead<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly detail: string };

/**
 * Checks a parsed request body against the fields the binding reads. The detail names paths
 * and expectations only, never values, so it can be logged and sent back as it is.
 */
export function readInbound<T>(schema: z.ZodType<T>, value: unknown): InboundRead<T> {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  const detail = result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
  return { ok: false, detail: detail.slice(0, 300) };
}
