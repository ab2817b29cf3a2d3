import type { Conversation } from '@tollgate/protocol';

/** A grant's scope: workspace ids are only unique within their platform. */
export function workspaceKey(conversation: Conversation): string {
  return `${conversation.platform}:${conversation.workspaceId}`;
}
