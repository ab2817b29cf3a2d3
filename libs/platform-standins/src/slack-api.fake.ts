import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultQueue, type FaultScope } from './fault-queue';
import { LocalHttpServer } from './local-http-server';
import type { SlackBlock } from './slack-blocks';
import { validateBlocks } from './slack-block-limits';
import { type FakeSlackView, SlackViewsFake } from './slack-views.fake';

/**
 * A local Slack Web API that the official `@slack/web-api` WebClient talks to through
 * `slackApiUrl`. It keeps channel messages in memory, records every call in order, and can be
 * told to fail the next calls the ways real Slack does (5xx, 429, slow, processed-but-silent).
 * Several clients (binding replicas) can share it, each through its own `apiUrlFor(client)`,
 * so a fault can single one of them out.
 */

export interface SlackApiFakeOptions {
  botToken?: string;
  teamId?: string;
  teamDomain?: string;
  botUserId?: string;
  botId?: string;
  appId?: string;
  /** When set, any other channel answers `channel_not_found`; when omitted every channel exists. */
  channels?: readonly string[];
  /**
   * Seconds part of the first generated ts. By default ts follow the clock, as Slack's do, so
   * that `oldest` / `latest` windows of history reads mean what they mean on Slack.
   */
  firstTsSeconds?: number;
  /**
   * Slack's per-method limits for the (one) workspace, enforced as a sliding window: a call
   * beyond `limit` in any `windowMs` gets 429 `ratelimited` with a Retry-After, e.g.
   * `{ 'chat.update': { limit: 50, windowMs: 60_000 } }` for Tier 3. A test may scale the
   * window down (and the binding's with TOLLGATE_RATE_WINDOW_DIVISOR) to keep its time short.
   */
  methodLimits?: Readonly<Record<string, { limit: number; windowMs: number }>>;
}

export const SLACK_FAKE_DEFAULTS = {
  botToken: 'xoxb-tollgate-fake-token',
  teamId: 'T0TOLLGATE',
  teamDomain: 'tollgate-test',
  botUserId: 'U0TOLLBOT',
  botId: 'B0TOLLBOT',
  appId: 'A0TOLLGATE',
} as const;

export type SlackFault =
  | { status: 500 | 502 | 503 | 504 }
  | { rateLimit: number }
  /** Holds the request for `hangMs`, then processes it; if the client gave up meanwhile, nothing is applied. */
  | { hangMs: number }
  /** Applies the call, then never answers (or answers after `answerAfterMs`, typically past the client's timeout). */
  | { acceptThenTimeout: true; answerAfterMs?: number }
  | { error: string };

export type SlackArgs = Record<string, unknown>;

export interface SlackApiCall {
  method: string;
  /** Which `apiUrlFor(client)` the call came through; undefined for `apiUrl`. */
  client?: string;
  /** Form or JSON fields; `blocks`, `attachments` and `metadata` already parsed from their JSON strings. */
  args: SlackArgs;
  at: Date;
  encoding: 'form' | 'json' | 'none';
  fault?: SlackFault;
}

export interface SlackMetadata {
  event_type: string;
  event_payload: Record<string, unknown>;
}

export interface SlackMessageVersion {
  text: string;
  blocks: SlackBlock[] | undefined;
  attachments: unknown[] | undefined;
  metadata: SlackMetadata | undefined;
  at: Date;
}

export interface FakeSlackMessage extends SlackMessageVersion {
  channel: string;
  ts: string;
  thread_ts: string | undefined;
  user: string;
  /** Absent on a person's message (`addUserMessage`). */
  bot_id?: string;
  edits: number;
  /** Every version, oldest first; the last one is the current state. */
  history: SlackMessageVersion[];
}

export interface SlackPost extends SlackMessageVersion {
  channel: string;
  ts: string;
  thread_ts: string | undefined;
}

/** The message as it stood right after one successful `chat.update`. */
export interface SlackEdit extends SlackPost {
  edit: number;
}

export interface SlackEphemeral {
  channel: string;
  user: string;
  message_ts: string;
  thread_ts: string | undefined;
  text: string;
  blocks: SlackBlock[] | undefined;
  at: Date;
}

export type SlackFaultScope = FaultScope;

/** What `SlackApiFake.snapshot` keeps. */
export interface SlackApiFakeSnapshot {
  readonly messages: Map<string, FakeSlackMessage>;
  readonly ephemerals: SlackEphemeral[];
  readonly tsSequence: number;
}

/**
 * A message someone other than the bot wrote: a person (e.g. the root of a thread the bot is
 * mentioned in), or another app when `bot_id` is given.
 */
export interface SlackUserMessage {
  channel: string;
  user: string;
  text: string;
  /** Generated when omitted. */
  ts?: string;
  thread_ts?: string;
  bot_id?: string;
  metadata?: SlackMetadata;
}

export type SlackMessageFilter =
  { channel?: string; ts?: string; thread_ts?: string } | ((message: SlackPost) => boolean);

type SlackResult = { ok: boolean; [key: string]: unknown };
type Handler = (args: SlackArgs) => SlackResult;
type Content = {
  text: string;
  blocks: SlackBlock[] | undefined;
  attachments: unknown[] | undefined;
};

const JSON_FIELDS = ['blocks', 'attachments', 'metadata', 'view'] as const;
const CLIENT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** `/api/<method>`, or `/<client>/api/<method>` for a client's own URL. */
const API_PATH = /^\/(?:([A-Za-z0-9_-]{1,64})\/)?api\/(.+)$/;
const RESPONSE_URL_PATH = /^\/actions\/([A-Za-z0-9]+)$/;

/** Slack lets a click's response_url be used 5 times within 30 minutes. */
const RESPONSE_URL_USES = 5;
const RESPONSE_URL_LIFETIME_MS = 30 * 60_000;

/** Who and where a click's response_url answers, and how much of it is left. */
interface ResponseUrlGrant {
  readonly channel: string;
  readonly user: string;
  readonly threadTs: string | undefined;
  readonly expiresAt: number;
  usesLeft: number;
}
const MAX_TEXT = 40_000;
const DEFAULT_PAGE = 100;

export class SlackApiFake {
  private readonly config: Required<
    Omit<SlackApiFakeOptions, 'channels' | 'firstTsSeconds' | 'methodLimits'>
  > & {
    firstTsSeconds?: number;
  } & {
    channels: readonly string[] | undefined;
  };
  private readonly methodLimits: NonNullable<SlackApiFakeOptions['methodLimits']>;
  /** Per limited method, when its calls within the window arrived. */
  private readonly arrivals = new Map<string, number[]>();
  private limitedCalls = 0;
  /** Each open connection, with a promise settled once it has closed. */
  private readonly http = new LocalHttpServer('SlackApiFake', (req, res) => this.handle(req, res));

  private get baseUrl(): string | undefined {
    return this.http.url;
  }
  private idleWaiters: Array<() => void> = [];
  private inFlight = 0;

  private callLog: SlackApiCall[] = [];
  private store = new Map<string, FakeSlackMessage>();
  private postLog: SlackPost[] = [];
  private editLog: SlackEdit[] = [];
  private ephemeralLog: SlackEphemeral[] = [];
  private readonly responseUrls = new Map<string, ResponseUrlGrant>();
  private readonly faults = new FaultQueue<string, SlackFault>();
  private latencyMs = 0;
  // Never reset: a ts handed out before reset() must not name a different message after it.
  private tsSequence = 0;
  private lastTsMicros = 0;

  private readonly handlers: Record<string, Handler> = {
    'auth.test': () => this.authTest(),
    'chat.postMessage': (args) => this.postMessage(args),
    'chat.update': (args) => this.update(args),
    'chat.postEphemeral': (args) => this.postEphemeral(args),
    'conversations.replies': (args) => this.replies(args),
    'conversations.history': (args) => this.history(args),
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
    this.methodLimits = methodLimits ?? {};
  }

  /** Calls answered 429 because they went beyond `methodLimits`. */
  get rateLimitedCalls(): number {
    return this.limitedCalls;
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
    if (this.inFlight === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Clears recorded calls, messages, pending faults and latency. */
  reset(): void {
    this.callLog = [];
    this.store = new Map();
    this.postLog = [];
    this.editLog = [];
    this.ephemeralLog = [];
    this.faults.clear();
    this.latencyMs = 0;
  }

  /**
   * What the workspace holds (messages, ephemeral notices, the ts sequence), for `restore` in
   * another process: the sandbox keeps its conversations across `npm start`s. Calls, faults and
   * latency are not part of it. Holds Maps and Dates: store it with `v8.serialize`.
   */
  snapshot(): SlackApiFakeSnapshot {
    return structuredClone({
      messages: this.store,
      ephemerals: this.ephemeralLog,
      tsSequence: this.tsSequence,
    });
  }

  restore(snapshot: SlackApiFakeSnapshot): void {
    this.store = structuredClone(snapshot.messages);
    this.ephemeralLog = structuredClone(snapshot.ephemerals);
    this.tsSequence = Math.max(this.tsSequence, snapshot.tsSequence);
  }

  /**
   * The next `times` calls to `method` (`'*'` for any method) get `fault` instead of a normal
   * answer; `scope` narrows them to one client's or one channel's calls. The first fault
   * registered that matches a call is the one it gets. `times` may be Infinity.
   */
  failNext(method: string, fault: SlackFault, times = 1, scope: SlackFaultScope = {}): void {
    this.faults.add(method, fault, times, scope);
  }

  /** Drops every pending fault; calls held by one are not released. */
  clearFaults(): void {
    this.faults.clear();
  }

  /** Stores a message someone else wrote, as Slack would have it; returns its ts. */
  addUserMessage(message: SlackUserMessage): string {
    const ts = message.ts ?? this.nextTs();
    const version: SlackMessageVersion = {
      text: message.text,
      blocks: undefined,
      attachments: undefined,
      metadata: message.metadata,
      at: new Date(),
    };
    this.store.set(key(message.channel, ts), {
      ...version,
      channel: message.channel,
      ts,
      thread_ts: message.thread_ts,
      user: message.user,
      ...(message.bot_id === undefined ? {} : { bot_id: message.bot_id }),
      edits: 0,
      history: [version],
    });
    return ts;
  }

  setLatencyMs(ms: number): void {
    this.latencyMs = ms;
  }

  /** How many calls, successful posts and successful edits so far, without copying the logs. */
  tally(): { calls: number; posts: number; edits: number } {
    return { calls: this.callLog.length, posts: this.postLog.length, edits: this.editLog.length };
  }

  get calls(): SlackApiCall[] {
    return structuredClone(this.callLog);
  }

  callsTo(method: string): SlackApiCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Current state of every channel message, in posting order. */
  get messages(): FakeSlackMessage[] {
    return structuredClone([...this.store.values()]);
  }

  /** The messages of one channel: copies only those, so a test polling many is not slowed. */
  messagesInChannel(channel: string): FakeSlackMessage[] {
    return structuredClone([...this.store.values()].filter((m) => m.channel === channel));
  }

  message(channel: string, ts: string): FakeSlackMessage | undefined {
    const found = this.store.get(key(channel, ts));
    return found && structuredClone(found);
  }

  /** Each successful `chat.postMessage`, as posted. */
  posts(filter?: SlackMessageFilter): SlackPost[] {
    return structuredClone(this.postLog.filter(matcher(filter)));
  }

  /** Each successful `chat.update`, as the message stood after it. */
  edits(filter?: SlackMessageFilter): SlackEdit[] {
    return structuredClone(this.editLog.filter(matcher(filter)));
  }

  get ephemerals(): SlackEphemeral[] {
    return structuredClone(this.ephemeralLog);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight += 1;
    try {
      await this.serve(req, res);
    } catch (error) {
      // A bug in the fake must show up in the test, not as a hung request.
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`SlackApiFake failed: ${error instanceof Error ? error.stack : String(error)}`);
      }
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        waiters.forEach((resolve) => resolve());
      }
    }
  }

  /**
   * A response_url for a click by `user` on a message in `channel`, on this stand-in's origin;
   * what is posted to it shows as an ephemeral to that user, as Slack's would.
   */
  responseUrlFor(target: { channel: string; user: string; threadTs?: string }): string {
    const id = randomBytes(12).toString('hex');
    this.responseUrls.set(id, {
      channel: target.channel,
      user: target.user,
      threadTs: target.threadTs,
      expiresAt: Date.now() + RESPONSE_URL_LIFETIME_MS,
      usesLeft: RESPONSE_URL_USES,
    });
    if (this.baseUrl === undefined) throw new Error('SlackApiFake: start() before responseUrlFor');
    return `${this.baseUrl}/actions/${id}`;
  }

  private serveResponseUrl(id: string, raw: string, res: ServerResponse): void {
    const grant = this.responseUrls.get(id);
    if (!grant || grant.usesLeft === 0 || grant.expiresAt < Date.now()) {
      sendText(res, 404, 'expired_url');
      return;
    }
    let body: { text?: unknown; response_type?: unknown; replace_original?: unknown };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      sendText(res, 400, 'invalid_payload');
      return;
    }
    if (typeof body.text !== 'string' || body.text === '') {
      sendText(res, 400, 'no_text');
      return;
    }
    grant.usesLeft -= 1;
    // Only an ephemeral reply that leaves the message alone is modelled; Tollgate sends no other.
    if (body.response_type !== 'ephemeral' || body.replace_original !== false) {
      sendText(res, 400, 'unsupported_by_fake');
      return;
    }
    this.ephemeralLog.push({
      channel: grant.channel,
      user: grant.user,
      message_ts: this.nextTs(),
      thread_ts: grant.threadTs,
      text: body.text,
      blocks: undefined,
      at: new Date(),
    });
    sendText(res, 200, 'ok');
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const raw = await readBody(req);
    const responseUrl = RESPONSE_URL_PATH.exec(url.pathname);
    if (responseUrl && req.method === 'POST') {
      this.serveResponseUrl(responseUrl[1], raw, res);
      return;
    }
    const route = API_PATH.exec(url.pathname);
    if (!route) {
      sendJson(res, 404, { ok: false, error: 'not_found' });
      return;
    }
    const client = route[1];
    const method = decodeURIComponent(route[2]);
    const { args, encoding } = parseArgs(req.headers['content-type'], raw, url.searchParams);
    const fault = this.faults.take(method, client, str(args.channel));
    this.callLog.push({
      method,
      ...(client === undefined ? {} : { client }),
      args,
      at: new Date(),
      encoding,
      ...(fault ? { fault } : {}),
    });

    const retryAfterS = this.overLimit(method);
    if (retryAfterS !== undefined) {
      this.limitedCalls += 1;
      sendJson(
        res,
        429,
        { ok: false, error: 'ratelimited' },
        { 'Retry-After': String(retryAfterS) },
      );
      return;
    }
    if (this.latencyMs > 0 && !(await this.http.pause(this.latencyMs, res))) return;
    if (!fault) {
      sendJson(res, 200, this.dispatch(method, args, req));
      return;
    }
    if ('status' in fault) {
      sendText(res, fault.status, `fake Slack outage (${fault.status})`);
    } else if ('rateLimit' in fault) {
      sendJson(
        res,
        429,
        { ok: false, error: 'ratelimited' },
        { 'Retry-After': String(fault.rateLimit) },
      );
    } else if ('error' in fault) {
      sendJson(res, 200, { ok: false, error: fault.error });
    } else if ('hangMs' in fault) {
      if (!(await this.http.pause(fault.hangMs, res))) return;
      sendJson(res, 200, this.dispatch(method, args, req));
    } else {
      const result = this.dispatch(method, args, req);
      if (fault.answerAfterMs === undefined) await this.http.pause(Infinity, res);
      else if (await this.http.pause(fault.answerAfterMs, res)) sendJson(res, 200, result);
    }
  }

  /** Seconds to wait when this call goes beyond its method's limit; else counts it. */
  private overLimit(method: string): number | undefined {
    const rule = this.methodLimits[method];
    if (rule === undefined) return undefined;
    const now = Date.now();
    const window = (this.arrivals.get(method) ?? []).filter((at) => at > now - rule.windowMs);
    this.arrivals.set(method, window);
    if (window.length >= rule.limit) {
      return Math.max(
        1,
        Math.ceil((window[window.length - rule.limit] + rule.windowMs - now) / 1000),
      );
    }
    window.push(now);
    return undefined;
  }

  private dispatch(method: string, args: SlackArgs, req: IncomingMessage): SlackResult {
    const handler = this.handlers[method];
    if (!handler) return { ok: false, error: 'unknown_method' };
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : str(args.token);
    if (token === undefined) return { ok: false, error: 'not_authed' };
    if (token !== this.config.botToken) return { ok: false, error: 'invalid_auth' };
    return handler(args);
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

  private postMessage(args: SlackArgs): SlackResult {
    const channel = this.channelOf(args);
    if (typeof channel !== 'string') return channel;
    const content = readContent(args);
    if ('ok' in content) return content;
    const metadata = readMetadata(args.metadata);
    if (metadata === 'invalid') return { ok: false, error: 'invalid_metadata_format' };
    const version: SlackMessageVersion = { ...content, metadata, at: new Date() };
    const message: FakeSlackMessage = {
      ...version,
      channel,
      ts: this.nextTs(),
      thread_ts: str(args.thread_ts),
      user: this.config.botUserId,
      bot_id: this.config.botId,
      edits: 0,
      history: [version],
    };
    this.store.set(key(channel, message.ts), message);
    this.postLog.push({ ...version, channel, ts: message.ts, thread_ts: message.thread_ts });
    return { ok: true, channel, ts: message.ts, message: this.wire(message, true) };
  }

  /** Slack's replacement rule: omitted `blocks` survive only when `text` is omitted too; `[]` clears them. */
  private update(args: SlackArgs): SlackResult {
    const channel = this.channelOf(args);
    if (typeof channel !== 'string') return channel;
    const ts = str(args.ts);
    const message = ts === undefined ? undefined : this.store.get(key(channel, ts));
    if (!message) return { ok: false, error: 'message_not_found' };
    if (args.text === undefined && args.blocks === undefined && args.attachments === undefined) {
      return { ok: false, error: 'no_text' };
    }
    const content = readContent({
      text: args.text ?? message.text,
      blocks: args.blocks ?? (args.text === undefined ? message.blocks : undefined),
      attachments: args.attachments ?? message.attachments,
    });
    if ('ok' in content) return content;
    const metadata = args.metadata === undefined ? message.metadata : readMetadata(args.metadata);
    if (metadata === 'invalid') return { ok: false, error: 'invalid_metadata_format' };

    const version: SlackMessageVersion = { ...content, metadata, at: new Date() };
    Object.assign(message, version);
    message.edits += 1;
    message.history.push(version);
    this.editLog.push({
      ...version,
      channel,
      ts: message.ts,
      thread_ts: message.thread_ts,
      edit: message.edits,
    });
    const updated = this.wire(message, true);
    return { ok: true, channel, ts: message.ts, text: message.text, message: updated };
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

  private postEphemeral(args: SlackArgs): SlackResult {
    const channel = this.channelOf(args);
    if (typeof channel !== 'string') return channel;
    const user = str(args.user);
    if (user === undefined) return { ok: false, error: 'user_not_found' };
    const content = readContent(args);
    if ('ok' in content) return content;
    const messageTs = this.nextTs();
    this.ephemeralLog.push({
      channel,
      user,
      message_ts: messageTs,
      thread_ts: str(args.thread_ts),
      text: content.text,
      blocks: content.blocks,
      at: new Date(),
    });
    return { ok: true, message_ts: messageTs };
  }

  /** Removes a message, as its author deleting it would; false when there was none. */
  deleteMessage(channel: string, ts: string): boolean {
    return this.store.delete(key(channel, ts));
  }

  /** The whole thread, parent first, whichever message of it `ts` names. */
  private replies(args: SlackArgs): SlackResult {
    const channel = this.channelOf(args);
    if (typeof channel !== 'string') return channel;
    const ts = str(args.ts);
    const named = ts === undefined ? undefined : this.store.get(key(channel, ts));
    const rootTs = named?.thread_ts ?? named?.ts;
    const root = rootTs === undefined ? undefined : this.store.get(key(channel, rootTs));
    if (!root) return { ok: false, error: 'thread_not_found' };
    const replies = [...this.store.values()]
      .filter((m) => m.channel === channel && m.thread_ts === root.ts && m.ts !== root.ts)
      .sort(byTs);
    const withMetadata = flag(args.include_all_metadata);
    const parent = {
      ...this.wire(root, withMetadata),
      ...(replies.length > 0
        ? { thread_ts: root.ts, reply_count: replies.length, latest_reply: replies.at(-1)?.ts }
        : {}),
    };
    const rest = replies
      .filter(inWindow(args))
      .map((m) => ({ ...this.wire(m, withMetadata), parent_user_id: root.user }));
    return paginate([parent, ...rest], args);
  }

  /** Top-level messages of a channel, newest first, as Slack lists them. */
  private history(args: SlackArgs): SlackResult {
    const channel = this.channelOf(args);
    if (typeof channel !== 'string') return channel;
    const withMetadata = flag(args.include_all_metadata);
    const topLevel = [...this.store.values()]
      .filter((m) => m.channel === channel && (m.thread_ts === undefined || m.thread_ts === m.ts))
      .filter(inWindow(args))
      .sort(byTs)
      .reverse()
      .map((m) => this.wire(m, withMetadata));
    return paginate(topLevel, args);
  }

  private channelOf(args: SlackArgs): string | SlackResult {
    const channel = str(args.channel);
    const known = this.config.channels;
    if (channel === undefined || (known && !known.includes(channel))) {
      return { ok: false, error: 'channel_not_found' };
    }
    return channel;
  }

  private wire(message: FakeSlackMessage, withMetadata: boolean): Record<string, unknown> {
    return {
      type: 'message',
      user: message.user,
      ...(message.bot_id === undefined
        ? {}
        : { bot_id: message.bot_id, app_id: this.config.appId }),
      team: this.config.teamId,
      text: message.text,
      ts: message.ts,
      ...(message.thread_ts !== undefined ? { thread_ts: message.thread_ts } : {}),
      ...(message.blocks ? { blocks: message.blocks } : {}),
      ...(message.attachments ? { attachments: message.attachments } : {}),
      ...(withMetadata && message.metadata ? { metadata: message.metadata } : {}),
    };
  }

  private nextTs(): string {
    this.tsSequence += 1;
    if (this.config.firstTsSeconds !== undefined) {
      const micros = this.tsSequence * 100;
      const seconds = this.config.firstTsSeconds + Math.floor(micros / 1_000_000);
      return `${seconds}.${String(micros % 1_000_000).padStart(6, '0')}`;
    }
    // The clock, in microseconds, never repeating: Slack's ts are unique per channel.
    this.lastTsMicros = Math.max(this.lastTsMicros + 1, Date.now() * 1000);
    const seconds = Math.floor(this.lastTsMicros / 1_000_000);
    return `${seconds}.${String(this.lastTsMicros % 1_000_000).padStart(6, '0')}`;
  }
}

function readContent(args: SlackArgs): Content | SlackResult {
  const text = str(args.text) ?? '';
  let blocks: SlackBlock[] | undefined;
  if (args.blocks !== undefined) {
    if (!Array.isArray(args.blocks)) return { ok: false, error: 'invalid_blocks_format' };
    const problems = validateBlocks(args.blocks);
    if (problems.length > 0) {
      return {
        ok: false,
        error: 'invalid_blocks',
        errors: problems,
        response_metadata: { messages: problems.map((p) => `[ERROR] ${p}`) },
      };
    }
    blocks = args.blocks.length > 0 ? (args.blocks as SlackBlock[]) : undefined;
  }
  let attachments: unknown[] | undefined;
  if (args.attachments !== undefined) {
    if (!Array.isArray(args.attachments)) return { ok: false, error: 'invalid_attachments' };
    attachments = args.attachments.length > 0 ? args.attachments : undefined;
  }
  if (text === '' && !blocks && !attachments) return { ok: false, error: 'no_text' };
  if (text.length > MAX_TEXT) return { ok: false, error: 'msg_too_long' };
  return { text, blocks, attachments };
}

/** `{}` is how a caller clears metadata on `chat.update`; anything else must be well formed. */
function readMetadata(value: unknown): SlackMetadata | undefined | 'invalid' {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'invalid';
  const candidate = value as Partial<SlackMetadata>;
  if (Object.keys(candidate).length === 0) return undefined;
  const payload = candidate.event_payload;
  if (typeof candidate.event_type !== 'string' || typeof payload !== 'object' || payload === null) {
    return 'invalid';
  }
  return { event_type: candidate.event_type, event_payload: payload };
}

/**
 * `oldest` / `latest` as Slack reads them: ts bounds, exclusive unless `inclusive` is set. Only
 * the time window narrows the read; the cursor then pages within it.
 */
function inWindow(args: SlackArgs): (message: { ts: string }) => boolean {
  const oldest = str(args.oldest);
  const latest = str(args.latest);
  const inclusive = flag(args.inclusive);
  return (message) => {
    const ts = Number(message.ts);
    if (oldest !== undefined && (inclusive ? ts < Number(oldest) : ts <= Number(oldest))) {
      return false;
    }
    if (latest !== undefined && (inclusive ? ts > Number(latest) : ts >= Number(latest))) {
      return false;
    }
    return true;
  };
}

function paginate(items: unknown[], args: SlackArgs): SlackResult {
  const limit = Number(args.limit ?? DEFAULT_PAGE) || DEFAULT_PAGE;
  const cursor = str(args.cursor);
  let offset = 0;
  if (cursor !== undefined && cursor !== '') {
    const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
    if (!match) return { ok: false, error: 'invalid_cursor' };
    offset = Number(match[1]);
  }
  const page = items.slice(offset, offset + limit);
  const hasMore = offset + limit < items.length;
  const next = hasMore ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '';
  return { ok: true, messages: page, has_more: hasMore, response_metadata: { next_cursor: next } };
}

/**
 * The SDK sends form fields and JSON-stringifies every non-scalar argument into one field;
 * Slack also accepts JSON bodies. Both end up as the same args.
 */
function parseArgs(
  contentType: string | undefined,
  raw: string,
  query: URLSearchParams,
): { args: SlackArgs; encoding: SlackApiCall['encoding'] } {
  const args: SlackArgs = Object.fromEntries(query);
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json') {
    const body: unknown = raw === '' ? {} : safeJson(raw);
    if (typeof body === 'object' && body !== null) Object.assign(args, body);
    return { args, encoding: 'json' };
  }
  if (raw === '') return { args, encoding: 'none' };
  Object.assign(args, Object.fromEntries(new URLSearchParams(raw)));
  for (const field of JSON_FIELDS) {
    const value = args[field];
    // An unparsable string stays a string so the method answers Slack's format error.
    if (typeof value === 'string') args[field] = safeJson(value) ?? value;
  }
  return { args, encoding: 'form' };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: SlackResult,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

function sendText(res: ServerResponse, status: number, body: string): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(body);
}

function matcher(filter: SlackMessageFilter | undefined): (message: SlackPost) => boolean {
  if (filter === undefined) return () => true;
  if (typeof filter === 'function') return filter;
  return (m) =>
    (filter.channel === undefined || m.channel === filter.channel) &&
    (filter.ts === undefined || m.ts === filter.ts) &&
    (filter.thread_ts === undefined || m.thread_ts === filter.thread_ts);
}

function key(channel: string, ts: string): string {
  return `${channel}/${ts}`;
}

function str(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

function flag(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 1;
}

function byTs(a: { ts: string }, b: { ts: string }): number {
  return Number(a.ts) - Number(b.ts);
}
