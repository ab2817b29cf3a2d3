import type { Conversation } from '@tollgate/protocol';
import type { Post } from '@mattermost/types/posts';
import { MattermostApiError, type MattermostClient } from './mattermost-client';

/**
 * Why this file exists: finding a post that may have been made without an answer (R3) means
 * reading the conversation back — a whole thread, or a channel page by page back to when the
 * post was set out on — and keeping only the bot's own posts; how far back to read, and when
 * to give up, is this look-back's own policy, apart from making posts.
 */

/** The largest page of a channel's posts the server gives. */
const CHANNEL_PAGE_SIZE = 200;
/** Without a time to read back to, no further than this many pages. */
const MAX_PAGES = 1;
/** Past this many pages even a time window is given up on: the channel is being flooded. */
const MAX_WINDOW_PAGES = 500;
/** Replicas' clocks and the server's differ a little: the window opens this much earlier. */
const CLOCK_MARGIN_MS = 5 * 60_000;

export class MattermostOwnPosts {
  private self?: Promise<string>;

  constructor(private readonly client: MattermostClient) {}

  /**
   * The bot's own posts in the conversation whose prop `key` is `value`, oldest first: the
   * whole thread for a threaded conversation, the channel's latest posts otherwise. Only the
   * bot's own posts count (another install of Tollgate could post the same props). A thread
   * the server no longer knows holds nothing of ours.
   */
  async find(
    conversation: Conversation,
    key: string,
    value: string,
    since?: Date,
  ): Promise<Post[]> {
    const me = await this.identity();
    let posts: Post[];
    try {
      posts = conversation.threadId
        ? Object.values(
            (
              await this.client.getPaginatedPostThread(conversation.threadId, {
                fetchThreads: false,
                fetchAll: true,
              })
            ).posts ?? {},
          )
        : await this.channelPostsSince(conversation.channelId, since);
    } catch (error) {
      if (error instanceof MattermostApiError && error.httpStatus === 404) return [];
      throw error;
    }
    return posts
      .filter((p) => p.user_id === me && p.props?.[key] === value)
      .sort((a, b) => a.create_at - b.create_at);
  }

  /**
   * The channel's posts, newest first, page by page back to `since` (with a margin), so a busy
   * channel cannot push the post out of reach (R3); one page when no time is known.
   */
  private async channelPostsSince(channelId: string, since?: Date): Promise<Post[]> {
    const oldest = since === undefined ? undefined : since.getTime() - CLOCK_MARGIN_MS;
    const maxPages = oldest === undefined ? MAX_PAGES : MAX_WINDOW_PAGES;
    const posts: Post[] = [];
    for (let page = 0; page < maxPages; page += 1) {
      const list = await this.client.getPosts(channelId, page, CHANNEL_PAGE_SIZE, false);
      const listed = Object.values(list.posts ?? {});
      posts.push(...listed);
      if (listed.length < CHANNEL_PAGE_SIZE) break;
      if (oldest === undefined || listed.some((p) => p.create_at < oldest)) break;
    }
    return posts;
  }

  /** Who the bot is, asked once per process; a failed ask is asked again next time. */
  private identity(): Promise<string> {
    this.self ??= this.client.getMe().then(
      (me) => me.id,
      (error: unknown) => {
        this.self = undefined;
        throw error;
      },
    );
    return this.self;
  }
}
