import { z } from 'zod';
import { platformSchema } from './platform';

/**
 * Where a session lives (PROTOCOL.md §1.1). Ids are `""` when the platform has none, e.g.
 * Discord's `threadId`, so no field requires a length.
 */
export const conversationSchema = z.strictObject({
  platform: platformSchema,
  workspaceId: z.string(),
  channelId: z.string(),
  threadId: z.string(),
});

export type Conversation = z.infer<typeof conversationSchema>;
