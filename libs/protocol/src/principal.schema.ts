import { z } from 'zod';

/** `automation` (a webhook or reminder) lets any member answer its prompts (docs/protocol.md §4). */
export const PRINCIPALS = ['user', 'automation'] as const;
export const principalSchema = z.enum(PRINCIPALS);
export type Principal = z.infer<typeof principalSchema>;

export const DEFAULT_PRINCIPAL: Principal = 'user';

/** The principal a message stands for; absent on the wire means `user`. */
export function principalOf(message: { readonly principal?: Principal | undefined }): Principal {
  return message.principal ?? DEFAULT_PRINCIPAL;
}
