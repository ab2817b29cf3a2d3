import { LocalHttpServer } from './local-http-server';
import { str, type SlackResult } from './slack-api.args';
import { type SlackFakeConfig, SlackMessageStore } from './slack-api.messages';
import { SlackMethodLimits } from './slack-api.rate-limits';
import { SlackApiRequests, type SlackHandler } from './slack-api.requests';
import { SlackResponseUrls } from './slack-api.response-urls';
import {
  type FakeSlackMessage,
  SLACK_FAKE_DEFAULTS,
  type SlackApiCall,
  type SlackApiFakeOptions,
  type SlackApiFakeSnapshot,
  type SlackArgs,
  type SlackEdit,
  type SlackEphemeral,
  type SlackFault,
  type SlackFaultScope,
  type SlackMessageFilter,
  type SlackPost,
  type SlackUserMessage,
} from './slack-api.types';
import { type FakeSlackView, SlackViewsFake } from './slack-views.fake';

export * from './slack-api.types';

const CLIENT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A local Slack Web API that the official `@slack/web-api` WebClient talks to through
 * `slackApiUrl`. It keeps channel messages in memory, records every call in order, and can be
 * told to fail the next calls the ways real Slack does (5xx, 429, slow, processed-but-silent).
 * Several clients (binding replicas) can share it, each through its own `apiUrlFor(client)`,
 * so a fault can single one of them out.
 *
 * This class is the stand-in's public face; the parts live beside it: the message store and
 * its method handlers (slack-api.messages), the request pipeline with faults and latency
 * (slack-api.requests), response_url grants, method rate limits and the argument readers.
 */
export class SlackApiFake {
  private readonly config: SlackFakeConfig;
  /** Each open connection, with a promise settled once it has closed. */
  private readonly http = new LocalHttpServer('SlackApiFake', (req, res) =>
    this.requests.handle(req, res),
  );

  private get baseUrl(): string | undefined {
    return this.http.url;
  }

  /** Every call recorded, and failed or delayed as told, before its handler answers. */
  private readonly requests: SlackApiRequests;
  /** Channel messages, posts, edits, ephemerals and the ts sequence, with their method handlers. */
  private readonly store: SlackMessageStore;
  private readonly responseUrls: SlackResponseUrls;

  private readonly handlers: Record<string, SlackHandler> = {
    'auth.test': () => this.authTest(),
    'chat.postMessage': (args) => this.store.postMessage(args),
    'chat.update': (args) => this.store.update(args),
    'chat.postEphemeral': (args) => this.store.postEphemeral(args),
    'conversations.replies': (args) => this.store.replies(args),
    'conversations.history': (args) => this.store.history(args),
    'views.open': (args) => this.modals.open(args),
    'usergroups.users.list': (args) => this.usergroupUsers(args),
  };
  /** G1: user groups (`S…`) and their members, as an admin set them up. */
  private readonly usergroups = new Map<string, readonly string[]>();
  /** G2: trigger_ids handed out with interactions, and the modals opened with them. */
  private readonly modals = new SlackViewsFake();

  constructor(options: SlackApiFakeOptions = {}) {
    const { methodLimits, ...rest } = options;
    this.config = { ...SLACK_FAKE_DEFAULTS, ...rest, channels: options.channels };
    this.store = new SlackMessageStore(this.config);
    this.responseUrls = new SlackResponseUrls(this.store);
    this.requests = new SlackApiRequests(
      this.http,
      this.config.botToken,
      this.handlers,
      new SlackMethodLimits(methodLimits ?? {}),
      this.responseUrls,
    );
  }

  /** Calls answered 429 because they went beyond `methodLimits`. */
  get rateLimitedCalls(): number {
    return this.requests.rateLimitedCalls;
  }

  get botToken(): string {
    return this.config.botToken;
  }

  get identity(): { teamId: string; botUserId: string; botId: string; appId: string } {
    const { teamId, botUserId, botId, appId } = this.config;
    return { teamId, botUserId, botId, appId };
  }

  /** `http://127.0.0.1:<port>/api/`, ready for the WebClient's `slackApiUrl`. */
  get apiUrl(): string {
    if (!this.baseUrl) throw new Error('SlackApiFake is not started');
    return `${this.baseUrl}/api/`;
  }

  /** Like `apiUrl`, but the calls made through it are recorded, and can be failed, as `client`'s. */
  apiUrlFor(client: string): string {
    if (!this.baseUrl) throw new Error('SlackApiFake is not started');
    if (!CLIENT_PATTERN.test(client))
      throw new Error(`client "${client}" must match ${CLIENT_PATTERN}`);
    return `${this.baseUrl}/${client}/api/`;
  }

  /**
   * A trigger_id for an interaction payload sent as `user`: good for one `views.open` within
   * 3 s, as Slack's are.
   */
  issueTriggerId(user: string): string {
    return this.modals.issueTrigger(user);
  }

  /** Every modal opened so far, oldest first. */
  get views(): FakeSlackView[] {
    return this.modals.views;
  }

  get openSockets(): number {
    return this.http.openSockets;
  }

  /** Listens on 127.0.0.1, on `port` when given (e.g. for a binding started by hand), else any free one. */
  async start(options: { port?: number } = {}): Promise<{ url: string; apiUrl: string }> {
    const url = await this.http.start(options.port);
    return { url, apiUrl: this.apiUrl };
  }

  /** Closes the listener, cuts every connection (held ones included) and cancels pending delays. */
  async stop(): Promise<void> {
    await this.http.stop();
  }

  /** Resolves once no request is being handled (held or delayed ones included). */
  async idle(): Promise<void> {
    await this.requests.idle();
  }

  /** Clears recorded calls, messages, pending faults and latency. */
  reset(): void {
    this.requests.reset();
    this.store.reset();
  }

  /**
   * What the workspace holds (messages, ephemeral notices, the ts sequence), for `restore` in
   * another process: the sandbox keeps its conversations across `npm start`s. Calls, faults and
   * latency are not part of it. Holds Maps and Dates: store it with `v8.serialize`.
   */
  snapshot(): SlackApiFakeSnapshot {
    return this.store.snapshot();
  }

  restore(snapshot: SlackApiFakeSnapshot): void {
    this.store.restore(snapshot);
  }

  /**
   * The next `times` calls to `method` (`'*'` for any method) get `fault` instead of a normal
   * answer; `scope` narrows them to one client's or one channel's calls. The first fault
   * registered that matches a call is the one it gets. `times` may be Infinity.
   */
  failNext(method: string, fault: SlackFault, times = 1, scope: SlackFaultScope = {}): void {
    this.requests.failNext(method, fault, times, scope);
  }

  /** Drops every pending fault; calls held by one are not released. */
  clearFaults(): void {
    this.requests.clearFaults();
  }

  /** Stores a message someone else wrote, as Slack would have it; returns its ts. */
  addUserMessage(message: SlackUserMessage): string {
    return this.store.addUserMessage(message);
  }

  setLatencyMs(ms: number): void {
    this.requests.setLatencyMs(ms);
  }

  /** How many calls, successful posts and successful edits so far, without copying the logs. */
  tally(): { calls: number; posts: number; edits: number } {
    return { calls: this.requests.callCount, ...this.store.tally() };
  }

  get calls(): SlackApiCall[] {
    return this.requests.calls;
  }

  callsTo(method: string): SlackApiCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Current state of every channel message, in posting order. */
  get messages(): FakeSlackMessage[] {
    return this.store.messages;
  }

  /** The messages of one channel: copies only those, so a test polling many is not slowed. */
  messagesInChannel(channel: string): FakeSlackMessage[] {
    return this.store.messagesInChannel(channel);
  }

  message(channel: string, ts: string): FakeSlackMessage | undefined {
    return this.store.message(channel, ts);
  }

  /** Each successful `chat.postMessage`, as posted. */
  posts(filter?: SlackMessageFilter): SlackPost[] {
    return this.store.posts(filter);
  }

  /** Each successful `chat.update`, as the message stood after it. */
  edits(filter?: SlackMessageFilter): SlackEdit[] {
    return this.store.edits(filter);
  }

  get ephemerals(): SlackEphemeral[] {
    return this.store.ephemerals;
  }

  /**
   * A response_url for a click by `user` on a message in `channel`, on this stand-in's origin;
   * what is posted to it shows as an ephemeral to that user, as Slack's would.
   */
  responseUrlFor(target: { channel: string; user: string; threadTs?: string }): string {
    return this.responseUrls.issue(target, this.baseUrl);
  }

  private authTest(): SlackResult {
    const { teamDomain, teamId, botUserId, botId } = this.config;
    return {
      ok: true,
      url: `https://${teamDomain}.slack.com/`,
      team: 'Tollgate Test',
      user: 'tollgate',
      team_id: teamId,
      user_id: botUserId,
      bot_id: botId,
      is_enterprise_install: false,
    };
  }

  /**
   * G1: a user group and its members, answered by `usergroups.users.list` (reference:
   * api.slack.com/methods/usergroups.users.list: `{ ok, users: [user ids] }`, `no_such_subteam`).
   */
  setUsergroup(id: string, users: readonly string[]): void {
    this.usergroups.set(id, [...users]);
  }

  private usergroupUsers(args: SlackArgs): SlackResult {
    const id = str(args.usergroup);
    if (id === undefined) return { ok: false, error: 'invalid_arguments' };
    const users = this.usergroups.get(id);
    if (users === undefined) return { ok: false, error: 'no_such_subteam' };
    return { ok: true, users: [...users] };
  }

  /** Removes a message, as its author deleting it would; false when there was none. */
  deleteMessage(channel: string, ts: string): boolean {
    return this.store.deleteMessage(channel, ts);
  }
}
