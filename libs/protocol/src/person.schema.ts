import { z } from 'zod';
import { storableIdentifier } from './storable-identifier';

/** A platform user; `id` is the platform's own user id, which answers are checked against. */
export const personSchema = z.strictObject({
  id: storableIdentifier().min(1),
  displayName: z.string().optional(),
});

export type Person = z.infer<typeof personSchema>;
