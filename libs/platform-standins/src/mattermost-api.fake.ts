import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultQueue, type FaultScope } from './fault-queue';
import { LocalHttpServer } from './local-http-server';
import { type FakeMattermostDialog, MattermostDialogsFake } from './mattermost-dialogs.fake';

/**
 * A local Mattermost REST API v4, as `@mattermost/client`'s Client4 calls it (`setUrl(base)`
 * then `<base>/api/v4/...`). It keeps posts in memory, records every call in order, and can be
 * told to fail the next calls the ways a real server or its proxy does (5xx, 429, slow,
 * processed-but-silent, a 4xx refusal). Like the real server it answers with Content-Type
 * exactly `application/json` (Client4 parses nothing else), errors as AppError bodies, and
 * strips `integration` from every action of every post it returns while keeping it stored,
 * so a test can "click" a stored button as Mattermost itself would. It also knows who is a
 * member of which channel, as `GET /channels/{channel_id}/members/{user_id}` answers it.
 * Several clients (binding replicas) can share it, each through its own `apiUrlFor(client)`
 * (`<base>/<client>`), so a fault can single one of them out.
 */

export const MATTERMOST_FAKE_DEFAULTS = {
  token: 'mmfaketollgatebottoken0000',
  botUserId: 'tollgatebot000000000000000',
  botUsername: 'tollgate',
  teamId: 'tollgateteam00000000000000',
} as const;

export type MattermostFault =
  | { status: 500 | 502 | 503 | 504 }
  /** 429 with `Retry-After: <seconds>`. */
  | { rateLimit: number }
  /** Holds the request for `hangMs`, then processes it; if the client gave up meanwhile, nothing is applied. */
  | { hangMs: number }
  /** Applies the call, then never answers (or answers after `answerAfterMs`). */
  | { acceptThenTimeout: true; answerAfterMs?: number }
  /** A refusal no retry fixes: a 4xx AppError (default 403 `api.context.permissions.app_error`). */
  | { refuse: 400 | 403 | 404; id?: string };

/** What the fake calls each route; a fault or a count can name one, or `'*'` for any. */
export type MattermostRoute =
  | 'createPost'
  | 'updatePost'
  | 'patchPost'
  | 'getPost'
  | 'getPostThread'
  | 'getChannelPosts'
  | 'createPostEphemeral'
  | 'getChannelMember'
  | 'getMe'
  | 'getUser'
  | 'openDialog'
  | 'getProfilesInGroup'
  | 'unknown';

export interface MattermostApiCall {
  route: MattermostRoute;
  method: string;
  path: string;
  /** Which `apiUrlFor(client)` the call came through; undefined for `apiUrl`. */
  client?: string;
  /** The channel the call is about, when known. */
  channel?: string;
  body: unknown;
  /** The Authorization header as sent. */
  authorization?: string;
  at: Date;
  fault?: MattermostFault;
}

export interface PostAction {
  id?: string;
  type?: string;
  name?: string;
  style?: string;
  integration?: { url?: string; context?: Record<string, unknown> };
  [key: string]: unknown;
}

export interface MessageAttachment {
  text?: string;
  color?: string;
  actions?: PostAction[];
  [key: string]: unknown;
}

export type PostProps = Record<string, unknown> & { attachments?: MessageAttachment[] };

export interface MattermostPostVersion {
  message: string;
  props: PostProps;
  at: Date;
}

export interface FakeMattermostPost extends MattermostPostVersion {
  id: string;
  channel_id: string;
  root_id: string;
  user_id: string;
  create_at: number;
  update_at: number;
  /** Successful updates and patches. */
  edits: number;
  /** Every version, oldest first; the last one is the current state. */
  history: MattermostPostVersion[];
}

export interface MattermostEphemeral {
  user_id: string;
  channel_id: string;
  root_id: string;
  message: string;
  at: Date;
}

export type MattermostFaultScope = FaultScope;

/** What `MattermostApiFake.snapshot` keeps. */
export interface MattermostApiFakeSnapshot {
  readonly posts: Map<string, FakeMattermostPost>;
  readonly ephemerals: MattermostEphemeral[];
  readonly memberships: Map<string, Set<string>>;
  readonly lastCreateAt: number;
}

export interface MattermostUserPost {
  channel_id: string;
  user_id: string;
  message: string;
  root_id?: string;
  /** Generated when omitted. */
  id?: string;
  props?: PostProps;
}

const CLIENT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** `/api/v4/<rest>`, or `/<client>/api/v4/<rest>` for a client's own URL. */
const API_PATH = /^\/(?:([A-Za-z0-9_-]{1,64})\/)?api\/v4\/(.+)$/;
const MAX_MESSAGE_RUNES = 16_383;

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** How long the server remembers a pending_post_id (its PendingPostIDsCacheTTL). */
const PENDING_POST_ID_TTL_MS = 30_000;

export class MattermostApiFake {
  private readonly config: typeof MATTERMOST_FAKE_DEFAULTS;
  private readonly http = new LocalHttpServer('MattermostApiFake', (req, res) =>
    this.handle(req, res),
  );

  private get baseUrl(): string | undefined {
    return this.http.url;
  }

  private callLog: MattermostApiCall[] = [];
  private store = new Map<string, FakeMattermostPost>();
  /** The server's seenPendingPostIdsCache: a pending_post_id seen, and the post it made. */
  private pendingPostIds = new Map<string, { postId: string; until: number }>();
  private ephemeralLog: MattermostEphemeral[] = [];
  /** Channel id → the ids of its members. */
  private memberships = new Map<string, Set<string>>();
  /** User id → username, for people given one; any other member's username is their id. */
  private usernames = new Map<string, string>();
  /** G1: groups and their members, for `getProfilesInGroup`. */
  private readonly groups = new Map<string, string[]>();
  private readonly faults = new FaultQueue<MattermostRoute, MattermostFault>();
  /** G2: trigger_ids handed out with action callbacks, and the dialogs opened with them. */
  private readonly dialogFake = new MattermostDialogsFake();

  /**
   * A trigger_id for an action callback sent as `userId` in `channelId`: good for one
   * `actions/dialogs/open` within 3 s, as the server's are.
   */
  issueTriggerId(userId: string, channelId: string): string {
    return this.dialogFake.issueTrigger(userId, channelId);
  }

  /** Every interactive dialog opened so far, oldest first. */
  get dialogs(): FakeMattermostDialog[] {
    return this.dialogFake.dialogs;
  }
  private latencyMs = 0;
  // Never reset: a time handed out before reset() must stay ordered after it.
  private lastCreateAt = 0;
  private editTimeLimitMs?: number;

  constructor(options: Partial<typeof MATTERMOST_FAKE_DEFAULTS> = {}) {
    this.config = { ...MATTERMOST_FAKE_DEFAULTS, ...options };
  }

  get token(): string {
    return this.config.token;
  }

  get identity(): { botUserId: string; botUsername: string; teamId: string } {
    const { botUserId, botUsername, teamId } = this.config;
    return { botUserId, botUsername, teamId };
  }

  /** `http://127.0.0.1:<port>`, ready for Client4's `setUrl`. */
  get apiUrl(): string {
    if (!this.baseUrl) throw new Error('MattermostApiFake is not started');
    return this.baseUrl;
  }

  /** Like `apiUrl`, but the calls made through it are recorded, and can be failed, as `client`'s. */
  apiUrlFor(client: string): string {
    if (!CLIENT_PATTERN.test(client))
      throw new Error(`client "${client}" must match ${CLIENT_PATTERN}`);
    return `${this.apiUrl}/${client}`;
  }

  get openSockets(): number {
    return this.http.openSockets;
  }

  async start(options: { port?: number } = {}): Promise<{ url: string }> {
    const url = await this.http.start(options.port);
    return { url };
  }

  /** Closes the listener, cuts every connection (held ones included) and cancels pending delays. */
  async stop(): Promise<void> {
    await this.http.stop();
  }

  reset(): void {
    this.callLog = [];
    this.store = new Map();
    this.pendingPostIds = new Map();
    this.ephemeralLog = [];
    this.memberships = new Map();
    this.usernames = new Map();
    this.faults.clear();
    this.latencyMs = 0;
    this.editTimeLimitMs = undefined;
  }

  /**
   * What the server holds (posts with their stored integrations, ephemeral posts, channel
   * members), for `restore` in another process: the sandbox keeps its conversations across
   * `npm start`s. Calls, faults and latency are not part of it. Store it with `v8.serialize`.
   */
  snapshot(): MattermostApiFakeSnapshot {
    return structuredClone({
      posts: this.store,
      ephemerals: this.ephemeralLog,
      memberships: this.memberships,
      lastCreateAt: this.lastCreateAt,
    });
  }

  restore(snapshot: MattermostApiFakeSnapshot): void {
    const copy = structuredClone(snapshot);
    this.store = copy.posts;
    this.ephemeralLog = copy.ephemerals;
    this.memberships = copy.memberships;
    this.lastCreateAt = Math.max(this.lastCreateAt, copy.lastCreateAt);
  }

  /**
   * The next `times` calls to `route` (`'*'` for any) get `fault`; `scope` narrows them to one
   * client's or one channel's calls. The first registered fault that matches wins.
   */
  failNext(
    route: MattermostRoute | '*',
    fault: MattermostFault,
    times = 1,
    scope: MattermostFaultScope = {},
  ): void {
    this.faults.add(route, fault, times, scope);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  setLatencyMs(ms: number): void {
    this.latencyMs = ms;
  }

  /** Stores a post someone else wrote (e.g. a thread's root); returns its id. */
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

  /** Makes people members of a channel (a user exists once a member of some channel). */
  addChannelMembers(channelId: string, userIds: readonly string[]): void {
    const members = this.memberships.get(channelId) ?? new Set<string>();
    for (const userId of userIds) members.add(userId);
    this.memberships.set(channelId, members);
  }

  /** Gives a person a username, as `GET /users/{user_id}` answers it. */
  setUsername(userId: string, username: string): void {
    this.usernames.set(userId, username);
  }

  removeChannelMember(channelId: string, userId: string): void {
    this.memberships.get(channelId)?.delete(userId);
  }

  isChannelMember(channelId: string, userId: string): boolean {
    return this.memberships.get(channelId)?.has(userId) ?? false;
  }

  /**
   * What the server does with an action callback's reply `ephemeral_text`: an ephemeral post
   * shown to the clicker only. Recorded with the ephemeral posts made through the API.
   */
  addEphemeral(entry: Omit<MattermostEphemeral, 'at'>): void {
    this.ephemeralLog.push({ ...entry, at: new Date() });
  }

  get calls(): MattermostApiCall[] {
    return structuredClone(this.callLog);
  }

  callsTo(route: MattermostRoute): MattermostApiCall[] {
    return this.calls.filter((call) => call.route === route);
  }

  /** Every post as stored (integrations included), in posting order. */
  get posts(): FakeMattermostPost[] {
    return structuredClone([...this.store.values()]);
  }

  /** The posts of one channel: copies only those, so a test polling many is not slowed. */
  postsInChannel(channelId: string): FakeMattermostPost[] {
    return structuredClone([...this.store.values()].filter((p) => p.channel_id === channelId));
  }

  post(id: string): FakeMattermostPost | undefined {
    const found = this.store.get(id);
    return found && structuredClone(found);
  }

  get ephemerals(): MattermostEphemeral[] {
    return structuredClone(this.ephemeralLog);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.serve(req, res);
    } catch (error) {
      if (!res.headersSent && !res.destroyed) {
        sendJson(res, 500, appError(500, 'fake.failure', String(error)));
      }
    }
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const raw = await readBody(req);
    const route = API_PATH.exec(url.pathname);
    if (!route) {
      sendJson(res, 404, appError(404, 'api.context.404.app_error', 'not found'));
      return;
    }
    const client = route[1];
    const rest = route[2];
    const method = (req.method ?? 'GET').toUpperCase();
    const body: unknown = raw ? safeJson(raw) : undefined;
    const name = routeOf(method, rest);
    const channel = this.channelOf(name, rest, body);
    const fault = this.faults.take(name, client, channel);
    const authorization = req.headers.authorization;
    this.callLog.push({
      route: name,
      method,
      path: `/api/v4/${rest}${url.search}`,
      ...(client === undefined ? {} : { client }),
      ...(channel === undefined ? {} : { channel }),
      body,
      ...(authorization === undefined ? {} : { authorization }),
      at: new Date(),
      ...(fault ? { fault } : {}),
    });

    if (this.latencyMs > 0 && !(await this.http.pause(this.latencyMs, res))) return;
    const answer = (): Answer => this.dispatch(name, rest, url.searchParams, body, authorization);
    if (!fault) return send(res, answer());
    if ('status' in fault) {
      sendJson(res, fault.status, appError(fault.status, 'fake.outage', 'fake Mattermost outage'));
    } else if ('rateLimit' in fault) {
      sendJson(res, 429, appError(429, 'api.context.rate_limit', 'too many requests'), {
        'Retry-After': String(fault.rateLimit),
      });
    } else if ('refuse' in fault) {
      sendJson(
        res,
        fault.refuse,
        appError(fault.refuse, fault.id ?? 'api.context.permissions.app_error', 'refused'),
      );
    } else if ('hangMs' in fault) {
      if (!(await this.http.pause(fault.hangMs, res))) return;
      send(res, answer());
    } else {
      const result = answer();
      if (fault.answerAfterMs === undefined) await this.http.pause(Infinity, res);
      else if (await this.http.pause(fault.answerAfterMs, res)) send(res, result);
    }
  }

  private dispatch(
    route: MattermostRoute,
    rest: string,
    query: URLSearchParams,
    body: unknown,
    authorization: string | undefined,
  ): Answer {
    const token = /^bearer\s+/i.test(authorization ?? '')
      ? authorization!.replace(/^bearer\s+/i, '')
      : undefined;
    if (token !== this.config.token) {
      return error(401, 'api.context.session_expired.app_error', 'Invalid or expired session');
    }
    const parts = rest.split('?')[0].split('/');
    const record = (typeof body === 'object' && body !== null ? body : {}) as Record<
      string,
      unknown
    >;
    switch (route) {
      case 'getMe':
        return ok(200, {
          id: this.config.botUserId,
          username: this.config.botUsername,
          is_bot: true,
        });
      case 'createPost':
        return this.createPost(record);
      case 'updatePost':
        return this.editPost(parts[1], record, 'update');
      case 'patchPost':
        return this.editPost(parts[1], record, 'patch');
      case 'getPost': {
        const post = this.store.get(parts[1]);
        return post ? ok(200, wire(post)) : notFound();
      }
      case 'getPostThread':
        return this.thread(parts[1]);
      case 'getChannelPosts':
        return this.channelPosts(parts[1], query);
      case 'createPostEphemeral':
        return this.ephemeral(record);
      case 'getChannelMember':
        return this.channelMember(parts[1], parts[3]);
      case 'getUser':
        return this.user(parts[1]);
      case 'getProfilesInGroup':
        return this.groupMembers(query);
      case 'openDialog': {
        const opened = this.dialogFake.open(record);
        return opened.ok
          ? ok(200, { status: 'OK' })
          : error(opened.status, 'api.action.open_dialog.app_error', opened.message);
      }
      default:
        return error(404, 'api.context.404.app_error', `no route ${rest}`);
    }
  }

  private createPost(body: Record<string, unknown>): Answer {
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
      user_id: this.config.botUserId,
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

  private editPost(id: string, body: Record<string, unknown>, how: 'update' | 'patch'): Answer {
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

  /** Removes a post, as its author deleting it would; false when there was none. */
  deletePost(id: string): boolean {
    return this.store.delete(id);
  }

  /**
   * `ServiceSettings.PostEditTimeLimit`: posts older than this can no longer be edited (400
   * `api.post.update_post.permissions_time_limit.app_error`); unlimited when undefined.
   */
  setEditTimeLimitMs(ms: number | undefined): void {
    this.editTimeLimitMs = ms;
  }

  private thread(id: string): Answer {
    const post = this.store.get(id);
    if (!post) return notFound();
    const rootId = post.root_id || post.id;
    const members = [...this.store.values()].filter((p) => p.id === rootId || p.root_id === rootId);
    return ok(200, postList(members));
  }

  private channelPosts(channel: string, query: URLSearchParams): Answer {
    const page = Number(query.get('page') ?? 0);
    const perPage = Number(query.get('per_page') ?? 60);
    const all = [...this.store.values()]
      .filter((p) => p.channel_id === channel)
      .sort((a, b) => b.create_at - a.create_at);
    return ok(200, postList(all.slice(page * perPage, (page + 1) * perPage)));
  }

  /**
   * As the server answers it for a bot allowed to read the channel: the membership, or 404
   * when the user is no member (or no user at all).
   */
  private channelMember(channelId: string, userId: string): Answer {
    if (!this.isChannelMember(channelId, userId)) {
      return error(
        404,
        'app.channel.get_member.missing.app_error',
        'No channel member found for that user ID and channel ID.',
      );
    }
    return ok(200, {
      channel_id: channelId,
      user_id: userId,
      roles: 'channel_user',
      last_viewed_at: 0,
      msg_count: 0,
      mention_count: 0,
      mention_count_root: 0,
      msg_count_root: 0,
      urgent_mention_count: 0,
      notify_props: {},
      last_update_at: 0,
      scheme_guest: false,
      scheme_user: true,
      scheme_admin: false,
    });
  }

  /**
   * A person as the server shows them to a bot: anyone with a username, or a member of some
   * channel (the bot itself too); 404 for anyone else, as the server answers an unknown id.
   */
  /**
   * G1: a group (26 characters, as a system admin or LDAP sync made it) and its members,
   * served as `GET /api/v4/users?in_group=<id>&page&per_page` (Client4.getProfilesInGroup).
   */
  setGroup(groupId: string, userIds: readonly string[]): void {
    this.groups.set(groupId, [...userIds]);
  }

  private groupMembers(query: URLSearchParams): Answer {
    const members = this.groups.get(query.get('in_group') ?? '');
    if (members === undefined) return error(404, 'app.group.no_rows', 'Unable to find the group.');
    const page = Number(query.get('page') ?? '0');
    const perPage = Math.min(Number(query.get('per_page') ?? '60'), 200);
    return ok(
      200,
      members.slice(page * perPage, (page + 1) * perPage).map((id) => ({
        id,
        username: this.usernames.get(id) ?? id,
        delete_at: 0,
        is_bot: false,
      })),
    );
  }

  private user(userId: string): Answer {
    const known =
      userId === this.config.botUserId ||
      this.usernames.has(userId) ||
      [...this.memberships.values()].some((members) => members.has(userId));
    if (!known) return error(404, 'app.user.missing_account.const', 'Unable to find the user.');
    const username =
      userId === this.config.botUserId
        ? this.config.botUsername
        : (this.usernames.get(userId) ?? userId);
    return ok(200, {
      id: userId,
      username,
      delete_at: 0,
      is_bot: userId === this.config.botUserId,
    });
  }

  private ephemeral(body: Record<string, unknown>): Answer {
    const user = str(body.user_id);
    const post = (body.post ?? {}) as Record<string, unknown>;
    const channel = str(post.channel_id);
    if (!user || !channel) {
      return error(400, 'api.context.invalid_body_param.app_error', 'user_id or post');
    }
    const entry: MattermostEphemeral = {
      user_id: user,
      channel_id: channel,
      root_id: str(post.root_id) ?? '',
      message: str(post.message) ?? '',
      at: new Date(),
    };
    this.ephemeralLog.push(entry);
    const now = entry.at.getTime();
    return ok(201, {
      id: newId(),
      channel_id: channel,
      root_id: entry.root_id,
      user_id: this.config.botUserId,
      message: entry.message,
      type: 'system_ephemeral',
      create_at: now,
      update_at: now,
      props: {},
    });
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

  private channelOf(route: MattermostRoute, rest: string, body: unknown): string | undefined {
    const record = (typeof body === 'object' && body !== null ? body : {}) as Record<
      string,
      unknown
    >;
    const parts = rest.split('/');
    switch (route) {
      case 'createPost':
        return str(record.channel_id);
      case 'createPostEphemeral':
        return str((record.post as Record<string, unknown> | undefined)?.channel_id);
      case 'updatePost':
      case 'patchPost':
      case 'getPost':
      case 'getPostThread':
        return this.store.get(parts[1])?.channel_id;
      case 'getChannelPosts':
      case 'getChannelMember':
        return parts[1];
      default:
        return undefined;
    }
  }
}

function routeOf(method: string, rest: string): MattermostRoute {
  const path = rest.split('?')[0];
  if (method === 'POST' && path === 'posts') return 'createPost';
  if (method === 'POST' && path === 'posts/ephemeral') return 'createPostEphemeral';
  if (method === 'GET' && path === 'users/me') return 'getMe';
  if (method === 'GET' && /^users\/[^/]+$/.test(path)) return 'getUser';
  // Tollgate lists users only by group (`?in_group=`); other listings answer as for no group.
  if (method === 'GET' && path === 'users') return 'getProfilesInGroup';
  if (method === 'POST' && path === 'actions/dialogs/open') return 'openDialog';
  if (method === 'PUT' && /^posts\/[^/]+$/.test(path)) return 'updatePost';
  if (method === 'PUT' && /^posts\/[^/]+\/patch$/.test(path)) return 'patchPost';
  if (method === 'GET' && /^posts\/[^/]+$/.test(path)) return 'getPost';
  if (method === 'GET' && /^posts\/[^/]+\/thread$/.test(path)) return 'getPostThread';
  if (method === 'GET' && /^channels\/[^/]+\/posts$/.test(path)) return 'getChannelPosts';
  if (method === 'GET' && /^channels\/[^/]+\/members\/[^/]+$/.test(path)) return 'getChannelMember';
  return 'unknown';
}

/** The server's model.Post.IsValid for actions, as far as Tollgate's buttons go. */
function invalidActions(props: unknown): string | undefined {
  if (props === undefined || props === null) return undefined;
  if (typeof props !== 'object') return 'props must be an object';
  const attachments = (props as PostProps).attachments;
  if (attachments === undefined) return undefined;
  if (!Array.isArray(attachments)) return 'attachments must be a list';
  for (const attachment of attachments) {
    for (const action of attachment.actions ?? []) {
      if (action.id !== undefined && !/^[A-Za-z0-9]+$/.test(action.id)) {
        return `action id ${action.id} is not letters and digits`;
      }
      if (!action.name) return 'action without a name';
      if (action.type !== 'button' && action.type !== 'select') return 'action type';
      if (!/^https?:\/\/|^\/plugins\//.test(action.integration?.url ?? '')) {
        return 'action integration url';
      }
    }
  }
  return undefined;
}

/** As the server returns a post: every action's `integration` stripped. */
function wire(post: FakeMattermostPost): Record<string, unknown> {
  const props = structuredClone(post.props);
  for (const attachment of props.attachments ?? []) {
    for (const action of attachment.actions ?? []) delete action.integration;
  }
  return {
    id: post.id,
    create_at: post.create_at,
    update_at: post.update_at,
    edit_at: post.edits > 0 ? post.update_at : 0,
    delete_at: 0,
    is_pinned: false,
    user_id: post.user_id,
    channel_id: post.channel_id,
    root_id: post.root_id,
    original_id: '',
    message: post.message,
    type: '',
    props,
    hashtags: '',
    pending_post_id: '',
    reply_count: 0,
    metadata: {},
  };
}

function postList(posts: FakeMattermostPost[]): Record<string, unknown> {
  const sorted = [...posts].sort((a, b) => b.create_at - a.create_at);
  return {
    order: sorted.map((p) => p.id),
    posts: Object.fromEntries(sorted.map((p) => [p.id, wire(p)])),
    next_post_id: '',
    prev_post_id: '',
    has_next: false,
  };
}

/** 26 lowercase letters and digits, like the server's NewId. */
function newId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(26)].map((b) => alphabet[b % alphabet.length]).join('');
}

function appError(status: number, id: string, message: string): Record<string, unknown> {
  return {
    id,
    message,
    detailed_error: '',
    request_id: newId(),
    status_code: status,
  };
}

function ok(status: number, body: unknown): Answer {
  return { status, body };
}

function error(status: number, id: string, message: string): Answer {
  return { status, body: appError(status, id, message) };
}

function notFound(): Answer {
  return error(404, 'app.post.get.app_error', 'Unable to get the post.');
}

function send(res: ServerResponse, answer: Answer): void {
  sendJson(res, answer.status, answer.body, answer.headers);
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed || res.headersSent) return;
  // Exactly `application/json`: Client4 parses no other Content-Type.
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
