import type { Conversation, Output } from '@tollgate/protocol';
import type { CallPriority } from './rate-limit-pacer';

/**
 * New prompts, resolutions, notices and texts are urgent; a refresh after a restart only
 * says "still valid" again, so it goes when the platform has room (issue 12, P5).
 */
export function priorityOf(output: Output): CallPriority {
  return output.type === 'ToolInteractionUpdate' && output.status === 'RefreshedAfterRestart'
    ? 'refresh'
    : 'urgent';
}

const decoder = new TextDecoder();

/**
 * A refresh's conversation, read from the raw delivery before it is validated, so that a
 * restart's refreshes can be set aside without the cost of handling them. Anything else, or
 * anything unreadable, is undefined: it is handled (and validated) as usual.
 */
export function refreshConversationOf(subject: string, data: Uint8Array): Conversation | undefined {
  if (!subject.endsWith('.update')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(data));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { type, status, conversation } = parsed as Record<string, unknown>;
  if (type !== 'ToolInteractionUpdate' || status !== 'RefreshedAfterRestart') return undefined;
  if (typeof conversation !== 'object' || conversation === null) return undefined;
  const { platform, workspaceId, channelId, threadId } = conversation as Record<string, unknown>;
  return typeof platform === 'string' &&
    typeof workspaceId === 'string' &&
    typeof channelId === 'string' &&
    typeof threadId === 'string'
    ? ({ platform, workspaceId, channelId, threadId } as Conversation)
    : undefined;
}
