import { z } from 'zod';
import { LIMITS } from './limits';

export const OPTION_KEYS = ['approve_once', 'approve_session', 'approve_always', 'deny'] as const;
export const optionKeySchema = z.enum(OPTION_KEYS);
export type OptionKey = z.infer<typeof optionKeySchema>;

export const OPTION_STYLES = ['primary', 'danger', 'default'] as const;
export type OptionStyle = (typeof OPTION_STYLES)[number];

/** One button of a prompt; the label travels with it so bindings need no copy of the policy. */
export const optionSchema = z.strictObject({
  key: optionKeySchema,
  label: z.string().min(1).max(LIMITS.optionLabel),
  style: z.enum(OPTION_STYLES),
});

export type Option = z.infer<typeof optionSchema>;
