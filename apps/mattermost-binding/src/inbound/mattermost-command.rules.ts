import { timingSafeEqual } from 'node:crypto';
import type { Conversation, Person } from '@tollgate/protocol';
import { mattermostCommandId } from './mattermost-command-id';

/**
 * What Mattermost POSTs for a slash command (`command`, `trigger_id`) or an outgoing webhook
 * (`trigger_word`, `post_id`), form-encoded or JSON; both carry the integration's `token`.
 */
export interface MattermostCommandBody {
  readonly token?: unknown;
  readonly team_id?: unknown;
  readonly channel_id?: unknown;
  readonly user_id?: unknown;
  readonly user_name?: unknown;
  readonly command?: unknown;
  readonly text?: unknown;
  readonly trigger_id?: unknown;
  readonly trigger_word?: unknown;
  readonly post_id?: unknown;
  readonly root_id?: unknown;
}

export interface InboundMattermostMessage {
  readonly conversation: Conversation;
  readonly sender: Person;
  readonly text: string;
  /** docs/protocol.md §1: from the `trigger_id`, or the post id, so a redelivery is the same command. */
  readonly commandId: string;
  /** A slash command answers its caller; an outgoing webhook's answer would be posted. */
  readonly source: 'slash_command' | 'outgoing_webhook';
}

export type MattermostCommandVerdict =
  | { readonly kind: 'forward'; readonly message: InboundMattermostMessage }
  | { readonly kind: 'ignore'; readonly reason: string };

/** Constant-time comparison of the request's token with MATTERMOST_COMMAND_TOKEN. */
export function commandTokenMatches(expected: string, given: unknown): boolean {
  if (typeof given !== 'string' || given === '') return false;
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * docs/protocol.md §1.1 for Mattermost: workspaceId = team id, channelId = the channel, threadId =
 * the post's `root_id`, or its own id when it is a root post (a slash command typed at the top
 * of a channel names no post: its thread is `""`).
 */
export function classifyMattermostCommand(body: MattermostCommandBody): MattermostCommandVerdict {
  const teamId = str(body.team_id);
  const channelId = str(body.channel_id);
  const userId = str(body.user_id);
  if (!teamId || !channelId || !userId) {
    return { kind: 'ignore', reason: 'no team, channel or user' };
  }
  const postId = str(body.post_id);
  const triggerId = str(body.trigger_id);
  const platformId = triggerId || postId;
  if (!platformId) return { kind: 'ignore', reason: 'no trigger_id or post_id' };
  const commandId = mattermostCommandId(platformId);
  const source = str(body.command) ? 'slash_command' : 'outgoing_webhook';
  let text = str(body.text) ?? '';
  const trigger = str(body.trigger_word);
  if (source === 'outgoing_webhook' && trigger && text.startsWith(trigger)) {
    text = text.slice(trigger.length);
  }
  text = text.trim();
  if (!text) return { kind: 'ignore', reason: 'no text' };
  const userName = str(body.user_name);
  return {
    kind: 'forward',
    message: {
      conversation: {
        platform: 'mattermost',
        workspaceId: teamId,
        channelId,
        threadId: str(body.root_id) || postId || '',
      },
      sender: { id: userId, ...(userName ? { displayName: userName } : {}) },
      text,
      commandId,
      source,
    },
  };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
