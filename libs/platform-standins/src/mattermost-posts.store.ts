import { type Answer, error, newId, notFound, ok, postList, wire } from './mattermost-api.answers';
import { invalidActions, MAX_MESSAGE_RUNES, str } from './mattermost-api.requests';
import type { FakeMattermostPost, MattermostUserPost, PostProps } from './mattermost-api.types';

/**
 * The posts `MattermostApiFake` holds, and the routes that read and write them: create (with
 * the server's pending_post_id deduplication), update, patch, get, thread and channel pages.
 * Its own class because it is the fake's one sizeable piece of state with rules of its own
 * (edit time limit, create_at ordering); the fake delegates its post methods here.
 */

/** How long the server remembers a pending_post_id (its PendingPostIDsCacheTTL). */
const PENDING_POST_ID_TTL_MS = 30_000;

export class MattermostPostStore {
  private store = new Map<string, FakeMattermostPost>();
  /** The server's seenPendingPostIdsCache: a pending_post_id seen, and the post it made. */
  private pendingPostIds = new Map<string, { postId: string; until: number }>();
  // Never reset: a time handed out before reset() must stay ordered after it.
  private lastCreateAt = 0;
  private editTimeLimitMs?: number;

  constructor(private readonly botUserId: string) {}

  reset(): void {
    this.store = new Map();
    this.pendingPostIds = new Map();
    this.editTimeLimitMs = undefined;
  }

  /** The stored posts and the last create_at, uncopied: the fake's snapshot() clones them. */
  state(): { posts: Map<string, FakeMattermostPost>; lastCreateAt: number } {
    return { posts: this.store, lastCreateAt: this.lastCreateAt };
  }

  /** Takes over `posts` (already a copy) and keeps create_at moving forward past `lastCreateAt`. */
  restore(posts: Map<string, FakeMattermostPost>, lastCreateAt: number): void {
    this.store = posts;
    this.lastCreateAt = Math.max(this.lastCreateAt, lastCreateAt);
  }

  addUserPost(post: MattermostUserPost): string {
    const id = post.id ?? newId();
    this.insert({
      id,
      channel_id: post.channel_id,
      root_id: post.root_id ?? '',
      user_id: post.user_id,
      message: post.message,
      props: post.props ?? {},
    });
    return id;
  }

  get posts(): FakeMattermostPost[] {
    return structuredClone([...this.store.values()]);
  }

  /** Copies only that channel's posts, so a test polling many is not slowed. */
  postsInChannel(channelId: string): FakeMattermostPost[] {
    return structuredClone([...this.store.values()].filter((p) => p.channel_id === channelId));
  }

  post(id: string): FakeMattermostPost | undefined {
    const found = this.store.get(id);
    return found && structuredClone(found);
  }

  /** The channel a post is in, for the call log and channel-scoped faults. */
  channelOfPost(id: string): string | undefined {
    return this.store.get(id)?.channel_id;
  }

  getPost(id: string): Answer {
    const post = this.store.get(id);
    return post ? ok(200, wire(post)) : notFound();
  }

  createPost(body: Record<string, unknown>): Answer {
    const channel = str(body.channel_id);
    if (!channel) return error(400, 'api.context.invalid_body_param.app_error', 'channel_id');
    const message = str(body.message) ?? '';
    if ([...message].length > MAX_MESSAGE_RUNES) {
      return error(400, 'model.post.is_valid.msg.app_error', 'message too long');
    }
    const rootId = str(body.root_id) ?? '';
    if (rootId && !this.store.has(rootId)) {
      return error(400, 'api.post.create_post.root_id.app_error', 'Invalid RootId parameter');
    }
    const invalid = invalidActions(body.props);
    if (invalid) return error(400, 'model.post.is_valid.props.app_error', invalid);
    // As the server deduplicates: a pending_post_id seen within 30 s answers with the post it
    // made, the API call made idempotent, instead of posting again.
    const pendingPostId = str(body.pending_post_id);
    const seen = pendingPostId === undefined ? undefined : this.pendingPostIds.get(pendingPostId);
    const earlier = seen && seen.until > Date.now() ? this.store.get(seen.postId) : undefined;
    if (earlier) return ok(201, wire(earlier));
    const post = this.insert({
      id: newId(),
      channel_id: channel,
      root_id: rootId,
      user_id: this.botUserId,
      message,
      props: (body.props as PostProps | undefined) ?? {},
    });
    if (pendingPostId !== undefined) {
      this.pendingPostIds.set(pendingPostId, {
        postId: post.id,
        until: Date.now() + PENDING_POST_ID_TTL_MS,
      });
    }
    return ok(201, wire(post));
  }

  editPost(id: string, body: Record<string, unknown>, how: 'update' | 'patch'): Answer {
    const post = this.store.get(id);
    if (!post) return notFound();
    if (this.editTimeLimitMs !== undefined && Date.now() - post.create_at > this.editTimeLimitMs) {
      return error(
        400,
        'api.post.update_post.permissions_time_limit.app_error',
        'Edit time limit exceeded',
      );
    }
    if (str(body.id) !== undefined && body.id !== id) {
      return error(400, 'api.context.invalid_body_param.app_error', 'id');
    }
    const invalid = invalidActions(body.props);
    if (invalid) return error(400, 'model.post.is_valid.props.app_error', invalid);
    // updatePost: "omitted fields will be treated as blank"; patchPost keeps them.
    const message = str(body.message) ?? (how === 'update' ? '' : post.message);
    if ([...message].length > MAX_MESSAGE_RUNES) {
      return error(400, 'model.post.is_valid.msg.app_error', 'message too long');
    }
    const props = (body.props as PostProps | undefined) ?? (how === 'update' ? {} : post.props);
    const at = new Date();
    post.message = message;
    post.props = structuredClone(props);
    post.at = at;
    post.update_at = at.getTime();
    post.edits += 1;
    post.history.push({ message, props: structuredClone(props), at });
    return ok(200, wire(post));
  }

  deletePost(id: string): boolean {
    return this.store.delete(id);
  }

  setEditTimeLimitMs(ms: number | undefined): void {
    this.editTimeLimitMs = ms;
  }

  thread(id: string): Answer {
    const post = this.store.get(id);
    if (!post) return notFound();
    const rootId = post.root_id || post.id;
    const members = [...this.store.values()].filter((p) => p.id === rootId || p.root_id === rootId);
    return ok(200, postList(members));
  }

  channelPosts(channel: string, query: URLSearchParams): Answer {
    const page = Number(query.get('page') ?? 0);
    const perPage = Number(query.get('per_page') ?? 60);
    const all = [...this.store.values()]
      .filter((p) => p.channel_id === channel)
      .sort((a, b) => b.create_at - a.create_at);
    return ok(200, postList(all.slice(page * perPage, (page + 1) * perPage)));
  }

  private insert(
    post: Omit<FakeMattermostPost, 'edits' | 'history' | 'at' | 'create_at' | 'update_at'>,
  ): FakeMattermostPost {
    const at = new Date();
    this.lastCreateAt = Math.max(this.lastCreateAt + 1, at.getTime());
    const stored: FakeMattermostPost = {
      ...post,
      props: structuredClone(post.props),
      at,
      create_at: this.lastCreateAt,
      update_at: this.lastCreateAt,
      edits: 0,
      history: [{ message: post.message, props: structuredClone(post.props), at }],
    };
    this.store.set(stored.id, stored);
    return stored;
  }
}
