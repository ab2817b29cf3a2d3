import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultQueue } from './fault-queue';
import { LocalHttpServer } from './local-http-server';
import { type Answer, appError, send, sendJson } from './mattermost-api.answers';
import { answerWithFault } from './mattermost-api.faults';
import { safeJson } from './mattermost-api.requests';
import { readBody } from './request-body';
import {
  API_PATH,
  channelOf,
  CLIENT_PATTERN,
  dispatch,
  type MattermostRouteTargets,
  routeOf,
} from './mattermost-api.routes';
import {
  MATTERMOST_FAKE_DEFAULTS,
  type FakeMattermostPost,
  type MattermostApiCall,
  type MattermostApiFakeSnapshot,
  type MattermostEphemeral,
  type MattermostFault,
  type MattermostFaultScope,
  type MattermostRoute,
  type MattermostUserPost,
} from './mattermost-api.types';
import type { FakeMattermostDialog } from './mattermost-dialogs.fake';
import { MattermostInteractions } from './mattermost-interactions';
import { MattermostPeople } from './mattermost-people';
import { MattermostPostStore } from './mattermost-posts.store';

// The fake's public types live beside it; importers keep taking them from here.
export * from './mattermost-api.types';

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
export class MattermostApiFake {
  private readonly config: typeof MATTERMOST_FAKE_DEFAULTS;
  private readonly http = new LocalHttpServer('MattermostApiFake', (req, res) =>
    this.handle(req, res),
  );

  private get baseUrl(): string | undefined {
    return this.http.url;
  }

  private callLog: MattermostApiCall[] = [];
  private readonly postStore: MattermostPostStore;
  private readonly people: MattermostPeople;
  private readonly interactions: MattermostInteractions;
  private readonly targets: MattermostRouteTargets;
  private readonly faults = new FaultQueue<MattermostRoute, MattermostFault>();
  private latencyMs = 0;

  /**
   * A trigger_id for an action callback sent as `userId` in `channelId`: good for one
   * `actions/dialogs/open` within 3 s, as the server's are.
   */
  issueTriggerId(userId: string, channelId: string): string {
    return this.interactions.issueTriggerId(userId, channelId);
  }

  /** Every interactive dialog opened so far, oldest first. */
  get dialogs(): FakeMattermostDialog[] {
    return this.interactions.dialogs;
  }

  constructor(options: Partial<typeof MATTERMOST_FAKE_DEFAULTS> = {}) {
    this.config = { ...MATTERMOST_FAKE_DEFAULTS, ...options };
    this.postStore = new MattermostPostStore(this.config.botUserId);
    this.people = new MattermostPeople(this.config);
    this.interactions = new MattermostInteractions(this.config.botUserId);
    this.targets = {
      config: this.config,
      posts: this.postStore,
      people: this.people,
      interactions: this.interactions,
    };
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
    this.postStore.reset();
    this.interactions.reset();
    this.people.reset();
    this.faults.clear();
    this.latencyMs = 0;
  }

  /**
   * What the server holds (posts with their stored integrations, ephemeral posts, channel
   * members), for `restore` in another process: the sandbox keeps its conversations across
   * `npm start`s. Calls, faults and latency are not part of it. Store it with `v8.serialize`.
   */
  snapshot(): MattermostApiFakeSnapshot {
    const { posts, lastCreateAt } = this.postStore.state();
    return structuredClone({
      posts,
      ephemerals: this.interactions.state(),
      memberships: this.people.state(),
      lastCreateAt,
    });
  }

  restore(snapshot: MattermostApiFakeSnapshot): void {
    const copy = structuredClone(snapshot);
    this.postStore.restore(copy.posts, copy.lastCreateAt);
    this.interactions.restore(copy.ephemerals);
    this.people.restore(copy.memberships);
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
    return this.postStore.addUserPost(post);
  }

  /** Makes people members of a channel (a user exists once a member of some channel). */
  addChannelMembers(channelId: string, userIds: readonly string[]): void {
    this.people.addChannelMembers(channelId, userIds);
  }

  /** Gives a person a username, as `GET /users/{user_id}` answers it. */
  setUsername(userId: string, username: string): void {
    this.people.setUsername(userId, username);
  }

  removeChannelMember(channelId: string, userId: string): void {
    this.people.removeChannelMember(channelId, userId);
  }

  isChannelMember(channelId: string, userId: string): boolean {
    return this.people.isChannelMember(channelId, userId);
  }

  /**
   * G1: a group (26 characters, as a system admin or LDAP sync made it) and its members,
   * served as `GET /api/v4/users?in_group=<id>&page&per_page` (Client4.getProfilesInGroup).
   */
  setGroup(groupId: string, userIds: readonly string[]): void {
    this.people.setGroup(groupId, userIds);
  }

  /**
   * What the server does with an action callback's reply `ephemeral_text`: an ephemeral post
   * shown to the clicker only. Recorded with the ephemeral posts made through the API.
   */
  addEphemeral(entry: Omit<MattermostEphemeral, 'at'>): void {
    this.interactions.addEphemeral(entry);
  }

  get calls(): MattermostApiCall[] {
    return structuredClone(this.callLog);
  }

  callsTo(route: MattermostRoute): MattermostApiCall[] {
    return this.calls.filter((call) => call.route === route);
  }

  /** Every post as stored (integrations included), in posting order. */
  get posts(): FakeMattermostPost[] {
    return this.postStore.posts;
  }

  /** The posts of one channel: copies only those, so a test polling many is not slowed. */
  postsInChannel(channelId: string): FakeMattermostPost[] {
    return this.postStore.postsInChannel(channelId);
  }

  post(id: string): FakeMattermostPost | undefined {
    return this.postStore.post(id);
  }

  get ephemerals(): MattermostEphemeral[] {
    return this.interactions.ephemerals;
  }

  /** Removes a post, as its author deleting it would; false when there was none. */
  deletePost(id: string): boolean {
    return this.postStore.deletePost(id);
  }

  /**
   * `ServiceSettings.PostEditTimeLimit`: posts older than this can no longer be edited (400
   * `api.post.update_post.permissions_time_limit.app_error`); unlimited when undefined.
   */
  setEditTimeLimitMs(ms: number | undefined): void {
    this.postStore.setEditTimeLimitMs(ms);
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
    const channel = channelOf(name, rest, body, (id) => this.postStore.channelOfPost(id));
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
    const answer = (): Answer =>
      dispatch(this.targets, name, rest, url.searchParams, body, authorization);
    if (!fault) return send(res, answer());
    await answerWithFault(this.http, res, fault, answer);
  }
}
