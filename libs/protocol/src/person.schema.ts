import { z } from 'zod';

/** A platform user; `id` is the platform's own user id, which answers are checked against. */
export const personSchema = z.strictObject({
  id: z.string().min(1),
  displayName: z.string().optional(),
});

export type Person = z.infer<typeof personSchema>;
