import { parseArgumentConstraint, parseDuration } from '@tollgate/protocol';
import { z } from 'zod';

/** Fields both sections of the policy file (`tools:`, `apiTools:`) read the same way. */

export const duration = z
  .string({
    error: (issue) => `must be a duration such as 30m, 8h or 2d, not ${shown(issue.input)}`,
  })
  .superRefine((text, ctx) => {
    const parsed = parseDuration(text);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.problem });
  })
  .transform((text) => {
    const parsed = parseDuration(text);
    return parsed.ok ? parsed.ms : 0;
  });

export const constraint = z.unknown().superRefine((raw, ctx) => {
  const parsed = parseArgumentConstraint(raw);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.problem });
});

export const editableField = z
  .record(z.string(), constraint, {
    error: 'must map each editable argument to its constraint',
  })
  .optional();

export const remindField = z
  .array(duration, { error: 'must be a list of durations, as in [1h, 8h]' })
  .optional();

export function shown(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}
