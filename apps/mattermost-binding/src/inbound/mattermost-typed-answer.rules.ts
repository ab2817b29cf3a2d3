import type { Post } from '@mattermost/types/posts';
import { MATTERMOST_ID_PATTERN } from './mattermost-id';

/**
 * What an outgoing webhook claims about the post that carried a typed answer. Every field is
 * the command token's word only: whoever holds the token can write any of them.
 */
export interface ClaimedPost {
  readonly postId?: string;
  readonly userId: string;
  readonly channelId: string;
  /** The thread the request names, if it names one. */
  readonly rootId?: string;
  /** The whole text the request says the post holds, trigger word included. */
  readonly text: string;
}

export type TypedAnswerRefusal =
  /** Not an id a post could have, or a request that names none (a slash command has none). */
  | 'no_post'
  /** The server has no such post, or not one a person wrote and still shows. */
  | 'unknown_post'
  /** The post was written by someone else than the request says, or by a webhook or bot. */
  | 'wrong_author'
  | 'wrong_channel'
  | 'wrong_thread'
  | 'wrong_text';

export type TypedAnswerPostCheck =
  | { readonly kind: 'refuse'; readonly reason: TypedAnswerRefusal }
  /** The post is what the request says; `threadId` is the conversation's, from the post. */
  | { readonly kind: 'verified'; readonly threadId: string };

/**
 * A typed answer counts only when the post it claims to be is real (docs/protocol.md §1.3,
 * X13): read back by id with the bot's own token, written by the sender themselves (not a
 * webhook or bot posting under their id), in the channel and thread the request names, with
 * exactly the text the request carries. Otherwise the token alone could answer as anyone.
 */
export function checkTypedAnswerPost(
  claimed: ClaimedPost,
  post: Post | undefined,
): TypedAnswerPostCheck {
  if (claimed.postId === undefined || !MATTERMOST_ID_PATTERN.test(claimed.postId)) {
    return { kind: 'refuse', reason: 'no_post' };
  }
  if (post === undefined || post.id !== claimed.postId || post.delete_at > 0 || post.type !== '') {
    return { kind: 'refuse', reason: 'unknown_post' };
  }
  const props: Record<string, unknown> = post.props ?? {};
  if (post.user_id !== claimed.userId || isTruthy(props.from_webhook) || isTruthy(props.from_bot)) {
    return { kind: 'refuse', reason: 'wrong_author' };
  }
  if (post.channel_id !== claimed.channelId) return { kind: 'refuse', reason: 'wrong_channel' };
  const threadId = post.root_id || post.id;
  if (claimed.rootId !== undefined && claimed.rootId !== '' && claimed.rootId !== threadId) {
    return { kind: 'refuse', reason: 'wrong_thread' };
  }
  if (post.message !== claimed.text) return { kind: 'refuse', reason: 'wrong_text' };
  return { kind: 'verified', threadId };
}

// The server writes these props as the string "true"; a boolean is read the same way.
function isTruthy(value: unknown): boolean {
  return value === true || value === 'true';
}
