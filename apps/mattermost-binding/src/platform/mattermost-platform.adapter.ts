import {
  type FoundPrompt,
  type MessageRef,
  type PacedCall,
  type PlatformAdapter,
  type RateBucket,
  type PlatformFailure,
  platformSafe,
  POST_NONCE_PATTERN,
  type PromptTarget,
  type PromptView,
} from '@tollgate/binding-core';
import {
  type Conversation,
  MAX_GROUP_MEMBERS,
  type Person,
  type TextRole,
} from '@tollgate/protocol';
import type { Post } from '@mattermost/types/posts';
import {
  MESSAGE_RUNE_LIMIT,
  MissingPostNonce,
  OUTPUT_ID_PROP,
  POST_NONCE_PROP,
  PROMPT_REF_PROP,
  renderMattermostPrompt,
  renderMattermostText,
  truncateRunes,
  type MattermostRenderSettings,
} from '../rendering/mattermost-prompt.renderer';
import { classifyMattermostFailure } from './mattermost-failure.classifier';
import { MattermostApiError, MattermostClient } from './mattermost-client';
import { MattermostOwnPosts } from './mattermost-own-posts';

/** G1: the largest page of a group's members the server gives. */
const GROUP_PAGE_SIZE = 200;
/** The membership lookup's answers that mean "not a member" (see isChannelMember). */
const NOT_A_MEMBER = new Set([400, 403, 404]);
/** Keeps the binding's pending_post_ids apart from any a person's client makes. */
const PENDING_POST_ID_PREFIX = 'tollgate:';

export interface MattermostAdapterOptions {
  /** The server's base URL (Client4 adds `/api/v4`). */
  url: string;
  token: string;
  /** `<MATTERMOST_PUBLIC_URL>/mattermost/actions` and the secret the buttons' contexts are signed with. */
  render: MattermostRenderSettings;
  /** A call that takes longer is abandoned and retried through JetStream. */
  timeoutMs: number;
}

/**
 * Mattermost through the official Client4 (no retries of its own: JetStream redelivery does
 * the retrying). Posts carry a prop naming what they show, so a retry finds a post that timed
 * out after the server took it, by reading the thread back.
 */
export class MattermostPlatformAdapter implements PlatformAdapter {
  readonly platform = 'mattermost' as const;
  private readonly client: MattermostClient;
  /** Reads the bot's own posts back, to find one that got no answer (R3). */
  private readonly ownPosts: MattermostOwnPosts;

  constructor(private readonly options: MattermostAdapterOptions) {
    this.client = new MattermostClient({
      url: options.url,
      token: options.token,
      timeoutMs: options.timeoutMs,
    });
    this.ownPosts = new MattermostOwnPosts(this.client);
  }

  /**
   * `pending_post_id` names the prompt: the server answers a repeat within 30 s with the post
   * it already made (its deduplication of client retries), so a retry after a post that got
   * no answer cannot make a second one, whatever nonce it carries. The post returned is then
   * the earlier one, and so is the nonce reported for it.
   */
  async postPrompt(target: PromptTarget, view: PromptView): Promise<FoundPrompt> {
    const post = renderMattermostPrompt(view, target, this.options.render);
    const created = await this.client.createPost(
      platformSafe({
        channel_id: target.conversation.channelId,
        root_id: target.conversation.threadId,
        message: post.message,
        props: structuredClone(post.props),
        pending_post_id: `${PENDING_POST_ID_PREFIX}${target.idempotencyKey ?? target.promptRef}`,
      }),
    );
    return shownPrompt(created, target.conversation.channelId);
  }

  /**
   * Message and props rebuilt whole from the view: the server stripped the buttons'
   * integrations from every copy it ever returned, so nothing read back may be sent again.
   * patchPost replaces props as a whole and leaves the post's other fields alone.
   */
  async editPrompt(target: PromptTarget, ref: MessageRef, view: PromptView): Promise<void> {
    const post = renderMattermostPrompt(view, target, this.options.render);
    await this.client.patchPost(
      platformSafe({
        id: ref.messageId,
        message: post.message,
        props: structuredClone(post.props),
      }),
    );
  }

  /**
   * G1: a group's members (`getProfilesInGroup`: `GET /users?in_group=`, 200 a page), up to
   * MAX_GROUP_MEMBERS. A group the server does not know is a 404, the post's permanent failure.
   */
  async resolveApproverGroup(_conversation: Conversation, groupId: string): Promise<string[]> {
    const found: string[] = [];
    for (let page = 0; found.length < MAX_GROUP_MEMBERS; page += 1) {
      const users = await this.client.getProfilesInGroup(groupId, page, GROUP_PAGE_SIZE);
      found.push(...users.map((u) => u.id));
      if (users.length < GROUP_PAGE_SIZE) break;
    }
    return found.slice(0, MAX_GROUP_MEMBERS);
  }

  async sendNotice(
    conversation: Conversation,
    to: Person,
    text: string,
    near?: MessageRef,
  ): Promise<void> {
    await this.client.createPostEphemeral(
      to.id,
      platformSafe({
        channel_id: near?.channelId ?? conversation.channelId,
        root_id: conversation.threadId,
        message: truncateRunes(renderMattermostText(text), MESSAGE_RUNE_LIMIT),
      }),
    );
  }

  async postText(
    conversation: Conversation,
    text: string,
    _role: TextRole,
    outputId: string,
    addressee?: Person,
  ): Promise<MessageRef> {
    const created = await this.client.createPost(
      platformSafe({
        channel_id: conversation.channelId,
        root_id: conversation.threadId,
        message: truncateRunes(renderMattermostText(text, addressee), MESSAGE_RUNE_LIMIT),
        props: { [OUTPUT_ID_PROP]: outputId },
      }),
    );
    return { channelId: created.channel_id || conversation.channelId, messageId: created.id };
  }

  /**
   * A Mattermost server limits each client as a whole (its rate limiter's defaults: 10
   * requests a second with bursts of 100), whatever the route.
   */
  rateBuckets(_call: PacedCall): readonly RateBucket[] {
    return [{ key: `mattermost:${this.options.url}`, limit: 100, windowMs: 10_000 }];
  }

  /**
   * Several attempts may each have reached the server (a post that timed out can still be
   * made after the client gave up): the one with the intent's nonce is preferred, else the
   * first; either way the nonce the post carries is returned, so the journal believes the
   * clicks its buttons send. `except` (the post the journal tracks) is passed over.
   */
  async findPostedPrompt(
    target: PromptTarget,
    since: Date,
    except?: MessageRef,
  ): Promise<FoundPrompt | undefined> {
    const own = await this.ownPosts.find(
      target.conversation,
      PROMPT_REF_PROP,
      target.promptRef,
      since,
    );
    const posts = own.filter((p) => p.id !== except?.messageId);
    const found =
      posts.find(
        (p) => target.postNonce !== undefined && p.props?.[POST_NONCE_PROP] === target.postNonce,
      ) ?? posts[0];
    return found === undefined ? undefined : shownPrompt(found, found.channel_id);
  }

  async findPostedText(
    conversation: Conversation,
    outputId: string,
  ): Promise<MessageRef | undefined> {
    const [found] = await this.ownPosts.find(conversation, OUTPUT_ID_PROP, outputId);
    return found ? { channelId: found.channel_id, messageId: found.id } : undefined;
  }

  /**
   * Whether the user exists and is a member of the channel (public channels included): the
   * server answers 200 only then. 400, 403 and 404 say no (no such user or channel, or a
   * channel the bot cannot see); anything else is thrown, since it says nothing either way.
   */
  async isChannelMember(channelId: string, userId: string): Promise<boolean> {
    try {
      const member = await this.client.getChannelMember(channelId, userId);
      return member.user_id === userId && member.channel_id === channelId;
    } catch (error) {
      if (error instanceof MattermostApiError && NOT_A_MEMBER.has(error.httpStatus)) return false;
      throw error;
    }
  }

  /**
   * A post as the server holds it, read with the bot's own token: what a typed answer is
   * checked against (its body is only the command token's word). Undefined when the server
   * says there is no such post or the bot may not see it.
   */
  async readPost(postId: string): Promise<Post | undefined> {
    try {
      return await this.client.getPost(postId);
    } catch (error) {
      if (error instanceof MattermostApiError && NOT_A_MEMBER.has(error.httpStatus)) {
        return undefined;
      }
      throw error;
    }
  }

  /** A person's username as the server has it; undefined for a user it does not know. */
  async userName(userId: string): Promise<string | undefined> {
    try {
      const user = await this.client.getUser(userId);
      return user.id === userId && user.username ? user.username : undefined;
    } catch (error) {
      if (error instanceof MattermostApiError && NOT_A_MEMBER.has(error.httpStatus)) {
        return undefined;
      }
      throw error;
    }
  }

  classifyFailure(error: unknown): PlatformFailure {
    // A bug, not an outage: no retry gives the prompt a nonce.
    if (error instanceof MissingPostNonce)
      return { kind: 'permanent', reason: 'missing_post_nonce' };
    return classifyMattermostFailure(error);
  }
}

/** A prompt's post as the server holds it, with the nonce it carries when it carries one. */
function shownPrompt(post: Post, channelId: string): FoundPrompt {
  const nonce = post.props?.[POST_NONCE_PROP];
  return {
    channelId: post.channel_id || channelId,
    messageId: post.id,
    ...(typeof nonce === 'string' && POST_NONCE_PATTERN.test(nonce) ? { postNonce: nonce } : {}),
  };
}
