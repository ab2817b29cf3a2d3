import { z } from 'zod';
import { platformSchema } from './platform';
import { storableIdentifier } from './storable-identifier';

/**
 * Where a session lives (docs/protocol.md §1.1). Ids are `""` when the platform has none, e.g.
 * Discord's `threadId`, so no field requires a length.
 */
export const conversationSchema = z.strictObject({
  platform: platformSchema,
  workspaceId: storableIdentifier(),
  channelId: storableIdentifier(),
  threadId: storableIdentifier(),
});

export type Conversation = z.infer<typeof conversationSchema>;
