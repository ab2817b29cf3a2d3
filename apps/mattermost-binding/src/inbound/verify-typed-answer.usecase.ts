import type { Post } from '@mattermost/types/posts';
import type { InboundMattermostMessage } from './mattermost-command.rules';
import { MATTERMOST_ID_PATTERN } from './mattermost-id';
import {
  checkTypedAnswerPost,
  type ClaimedPost,
  type TypedAnswerRefusal,
} from './mattermost-typed-answer.rules';

export interface VerifyTypedAnswerDeps {
  /** The post by id, read with the bot's own token; undefined when the server has none. */
  readonly readPost: (postId: string) => Promise<Post | undefined>;
  /** Asked afresh on every answer (a positive answer is believed for at most 5 s). */
  readonly isMember: (channelId: string, userId: string) => Promise<boolean>;
  readonly nameOf: (userId: string) => Promise<string | undefined>;
}

export type TypedAnswerVerdict =
  | { readonly kind: 'verified'; readonly message: InboundMattermostMessage }
  | { readonly kind: 'refused'; readonly reason: TypedAnswerRefusal | 'not_a_member' };

/**
 * An outgoing webhook's answer word, believed only as far as the server confirms it (X13): the
 * post is real and says what the request says, its author is still a member of the channel,
 * and the approver's name is the server's. The message that comes out carries the thread the
 * post is in and that name, nothing the request asserted on its own.
 */
export class VerifyTypedAnswer {
  constructor(private readonly deps: VerifyTypedAnswerDeps) {}

  async execute(
    claimed: ClaimedPost,
    message: InboundMattermostMessage,
  ): Promise<TypedAnswerVerdict> {
    // Only an id the rules accept is looked up: Client4 puts it in the path unencoded.
    const { postId } = claimed;
    const post =
      postId !== undefined && MATTERMOST_ID_PATTERN.test(postId)
        ? await this.deps.readPost(postId)
        : undefined;
    const check = checkTypedAnswerPost(claimed, post);
    if (check.kind === 'refuse') return { kind: 'refused', reason: check.reason };
    const { userId, channelId } = claimed;
    if (!(await this.deps.isMember(channelId, userId))) {
      return { kind: 'refused', reason: 'not_a_member' };
    }
    const name = await this.deps.nameOf(userId);
    return {
      kind: 'verified',
      message: {
        ...message,
        conversation: { ...message.conversation, threadId: check.threadId },
        sender: { id: userId, ...(name ? { displayName: name } : {}) },
      },
    };
  }
}
