import { timingSafeEqual } from 'node:crypto';
import type { JournaledPrompt, MessageRef } from '@tollgate/binding-core';
import type { ActionContext } from './action-signature';
import { MATTERMOST_ID_PATTERN } from './mattermost-id';

/** The parts of an action callback the binding reads besides the context; all untrusted. */
export interface ClickRequest {
  readonly userId?: string;
  readonly postId?: string;
  readonly channelId?: string;
}

/**
 * What docs/protocol.md §5 (revised 2026-11-30) makes of a signed click, once the journal has been
 * read: `refuse` is a 401 with nothing published; `expired` is a prompt the journal holds as
 * cleared; `check_member` is every check but membership passed.
 */
export type ClickCheck =
  | { readonly kind: 'refuse'; readonly reason: ClickRefusal }
  | { readonly kind: 'expired'; readonly messageRef: MessageRef }
  | {
      readonly kind: 'check_member';
      readonly userId: string;
      /** The journaled post: its channel is the one membership is checked in. */
      readonly messageRef: MessageRef;
      readonly promptRef: string;
    };

export type ClickRefusal =
  /** No user, post or channel, or a user id that cannot be a Mattermost id. */
  | 'incomplete_request'
  /** The journal holds no such prompt, or not with this nonce. */
  | 'unknown_nonce'
  /** The request names another post, or the post in another channel, than the journaled one. */
  | 'wrong_post';

/**
 * A click is believed only for the post the journal tracks for that prompt, with the nonce
 * that post was made with: a context captured from it answers nothing on another post, in
 * another channel, or once the prompt was posted again. `user_id` is not trusted for anything
 * here; membership is checked next, in the journaled channel, never the request's.
 */
export function checkClick(
  context: ActionContext,
  request: ClickRequest,
  journaled: JournaledPrompt | undefined,
): ClickCheck {
  const { userId, postId, channelId } = request;
  if (!userId || !MATTERMOST_ID_PATTERN.test(userId) || !postId || !channelId) {
    return { kind: 'refuse', reason: 'incomplete_request' };
  }
  if (!holdsNonce(journaled, context.nonce)) return { kind: 'refuse', reason: 'unknown_nonce' };
  const { state } = journaled;
  switch (state.status) {
    case 'untracked':
      // A nonce is journaled only with a post, and a post is never untracked again.
      return { kind: 'refuse', reason: 'unknown_nonce' };
    case 'pending':
    case 'cleared': {
      const shown = state.messageRef;
      if (shown === undefined || shown.messageId !== postId || shown.channelId !== channelId) {
        return { kind: 'refuse', reason: 'wrong_post' };
      }
      return state.status === 'cleared'
        ? { kind: 'expired', messageRef: shown }
        : { kind: 'check_member', userId, messageRef: shown, promptRef: journaled.promptRef };
    }
  }
}

/**
 * Whether the journal holds this prompt with the nonce of the post a signed context came from:
 * the HMAC says Tollgate made the context, the nonce that it is the post shown now. Compared in
 * constant time, as the signature is.
 */
export function holdsNonce(
  journaled: JournaledPrompt | undefined,
  nonce: string,
): journaled is JournaledPrompt {
  return journaled?.postNonce !== undefined && sameText(journaled.postNonce, nonce);
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
