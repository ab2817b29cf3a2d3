import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultQueue, type FaultScope } from './fault-queue';
import { LocalHttpServer } from './local-http-server';
import { checkDiscordModal, type FakeDiscordModal } from './discord-modals.fake';

/**
 * A local Discord REST API (v10) that the official `@discordjs/rest` client talks to through
 * its `api` option (`http://127.0.0.1:<port>/api`). It keeps channel messages in memory,
 * records every call in order, honours `nonce` + `enforce_nonce` (a repeat with the same nonce
 * in the same channel returns the message already created, as Discord does for a few minutes),
 * and can be told to fail the next calls the ways real Discord does (5xx, 429, slow,
 * processed-but-silent, refused). Several clients (binding replicas) can share it, each
 * through its own `apiUrlFor(client)`, so a fault can single one of them out.
 *
 * Interaction responses (`PATCH /webhooks/{app}/{token}/messages/@original`) and follow-ups
 * (`POST /webhooks/{app}/{token}`) are kept apart from channel messages: an ephemeral
 * follow-up (flags 64) is a private notice to the person whose interaction issued the token,
 * and a message in a DM channel (`POST /users/@me/channels`) is a private notice to its
 * recipient.
 *
 * Application commands (`PUT /applications/{app}/commands`, and `/guilds/{guild}/commands`
 * for one server) are kept per scope and replaced as a whole, as Discord's bulk overwrite does.
 */

export const DISCORD_FAKE_DEFAULTS = {
  botToken: 'discord-fake-bot-token',
  applicationId: '1100000000000000001',
  guildId: '1200000000000000001',
  botUsername: 'tollgate',
} as const;

export interface DiscordApiFakeOptions {
  botToken?: string;
  applicationId?: string;
  guildId?: string;
}

/** The calls a fault or a filter can name. */
export type DiscordMethod =
  | 'createMessage'
  | 'editMessage'
  | 'listMessages'
  | 'createFollowup'
  | 'editOriginal'
  | 'createDm'
  | 'getMe'
  | 'overwriteCommands'
  | 'listGuildMembers';

export type DiscordFault =
  | { status: 500 | 502 | 503 | 504 }
  /** A 429 with `Retry-After` (seconds) and Discord's JSON body. */
  | { rateLimit: number }
  /** Holds the request for `hangMs`, then processes it; if the client gave up meanwhile, nothing is applied. */
  | { hangMs: number }
  /** Applies the call, then never answers (or answers after `answerAfterMs`). */
  | { acceptThenTimeout: true; answerAfterMs?: number }
  /** A 4xx refusal, e.g. `{ status: 404, code: 10003, message: 'Unknown Channel' }`. */
  | { refuse: { status: number; code: number; message: string } };

export type DiscordFaultScope = FaultScope;

export interface DiscordApiCall {
  method: DiscordMethod | 'unknown';
  httpMethod: string;
  path: string;
  client?: string;
  /** The channel the call is about, when its path names one. */
  channel?: string;
  body: Record<string, unknown>;
  /** A body that is a JSON array (a bulk command overwrite), as sent. */
  list?: unknown[];
  at: Date;
  fault?: DiscordFault;
  /** Set on a create that repeated an enforced nonce: the id of the message it returned. */
  nonceReplayOf?: string;
}

export interface DiscordButton {
  type: 2;
  style: number;
  label?: string;
  custom_id?: string;
  url?: string;
  disabled?: boolean;
}

export interface DiscordActionRow {
  type: 1;
  components: DiscordButton[];
}

export interface FakeDiscordMessage {
  id: string;
  channel_id: string;
  content: string;
  components: DiscordActionRow[];
  nonce?: string;
  flags: number;
  edits: number;
  created_at: Date;
  /** Someone else's message (addUserMessage); the bot's own otherwise. */
  authorId?: string;
}

export interface DiscordNotice {
  /** Who sees it: the interaction's user, or the DM's recipient. */
  userId: string;
  content: string;
  via: 'ephemeral_followup' | 'ephemeral_response' | 'dm';
  /** The channel it shows in (the interaction's channel, or the DM channel). */
  channelId?: string;
  at: Date;
}

/** What `DiscordApiFake.snapshot` keeps. */
export interface DiscordApiFakeSnapshot {
  readonly messages: Map<string, FakeDiscordMessage>;
  readonly nonces: Map<string, { messageId: string; at: number }>;
  readonly notices: DiscordNotice[];
  readonly originals: Map<string, { content: string; edits: number }>;
  readonly followups: Array<{ token: string; content: string; flags: number; at: Date }>;
  readonly interactions: Map<string, DiscordInteractionIssue>;
  readonly dmChannels: Map<string, string>;
  readonly idSequence: bigint;
}

/** A registered application command, as Discord answers it. */
export interface FakeApplicationCommand {
  id: string;
  application_id: string;
  guild_id?: string;
  version: string;
  name: string;
  type: number;
  description: string;
  options?: Array<Record<string, unknown>>;
  integration_types?: number[];
  contexts?: number[];
}

export interface DiscordInteractionIssue {
  token: string;
  userId: string;
  channelId?: string;
}

type Result = { status: number; body: unknown };

const CLIENT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** `/api/v10/<route>`, or `/<client>/api/v10/<route>` for a client's own URL. */
const API_PATH = /^\/(?:([A-Za-z0-9_-]{1,64})\/)?api\/v(\d+)(\/.*)$/;
const MAX_CONTENT = 2_000;
const NONCE_WINDOW_MS = 5 * 60_000;
const EPHEMERAL = 1 << 6;
/** Chat input command and option names (Discord also allows other scripts' lower case). */
const COMMAND_NAME = /^[-_\p{Ll}\p{N}]{1,32}$/u;

export class DiscordApiFake {
  private readonly config: Required<DiscordApiFakeOptions>;
  private readonly http = new LocalHttpServer('DiscordApiFake', (req, res) =>
    this.handle(req, res),
  );

  private get baseUrl(): string | undefined {
    return this.http.url;
  }

  private callLog: DiscordApiCall[] = [];
  private store = new Map<string, FakeDiscordMessage>();
  private nonces = new Map<string, { messageId: string; at: number }>();
  private noticeLog: DiscordNotice[] = [];
  private originals = new Map<string, { content: string; edits: number }>();
  private followups: Array<{ token: string; content: string; flags: number; at: Date }> = [];
  private interactions = new Map<string, DiscordInteractionIssue>();
  private dmChannels = new Map<string, string>();
  private modalLog: FakeDiscordModal[] = [];
  /** G1: guild members and their roles, for "List Guild Members". */
  private readonly guildMembers = new Map<string, { roles: string[]; username: string }>();
  /** Registered commands by scope: '' for global, else the guild id. */
  private commandSets = new Map<string, FakeApplicationCommand[]>();
  private readonly faults = new FaultQueue<DiscordMethod, DiscordFault>();
  private latencyMs = 0;
  // Never reset: an id handed out before reset() must not name a different message after it.
  private idSequence = 0n;

  constructor(options: DiscordApiFakeOptions = {}) {
    this.config = { ...DISCORD_FAKE_DEFAULTS, ...options };
  }

  get botToken(): string {
    return this.config.botToken;
  }

  get applicationId(): string {
    return this.config.applicationId;
  }

  get guildId(): string {
    return this.config.guildId;
  }

  /** `http://127.0.0.1:<port>/api`, ready for REST's `api` option (no trailing slash). */
  get apiUrl(): string {
    if (!this.baseUrl) throw new Error('DiscordApiFake is not started');
    return `${this.baseUrl}/api`;
  }

  /** Like `apiUrl`, but the calls made through it are recorded, and can be failed, as `client`'s. */
  apiUrlFor(client: string): string {
    if (!this.baseUrl) throw new Error('DiscordApiFake is not started');
    if (!CLIENT_PATTERN.test(client))
      throw new Error(`client "${client}" must match ${CLIENT_PATTERN}`);
    return `${this.baseUrl}/${client}/api`;
  }

  get openSockets(): number {
    return this.http.openSockets;
  }

  async start(options: { port?: number } = {}): Promise<{ url: string; apiUrl: string }> {
    const url = await this.http.start(options.port);
    return { url, apiUrl: this.apiUrl };
  }

  /** Closes the listener, cuts every connection (held ones included) and cancels pending delays. */
  async stop(): Promise<void> {
    await this.http.stop();
  }

  /** Clears recorded calls, messages, notices, pending faults and latency. */
  reset(): void {
    this.callLog = [];
    this.store = new Map();
    this.nonces = new Map();
    this.noticeLog = [];
    this.originals = new Map();
    this.followups = [];
    this.interactions = new Map();
    this.modalLog = [];
    this.dmChannels = new Map();
    this.commandSets = new Map();
    this.faults.clear();
    this.latencyMs = 0;
  }

  /**
   * What the guild holds (messages, notices, interaction responses, nonces, DM channels, the id
   * sequence), for `restore` in another process: the sandbox keeps its conversations across
   * `npm start`s. Calls, faults and latency are not part of it. Store it with `v8.serialize`.
   */
  snapshot(): DiscordApiFakeSnapshot {
    return structuredClone({
      messages: this.store,
      nonces: this.nonces,
      notices: this.noticeLog,
      originals: this.originals,
      followups: this.followups,
      interactions: this.interactions,
      dmChannels: this.dmChannels,
      idSequence: this.idSequence,
    });
  }

  restore(snapshot: DiscordApiFakeSnapshot): void {
    const copy = structuredClone(snapshot);
    this.store = copy.messages;
    this.nonces = copy.nonces;
    this.noticeLog = copy.notices;
    this.originals = copy.originals;
    this.followups = copy.followups;
    this.interactions = copy.interactions;
    this.dmChannels = copy.dmChannels;
    if (copy.idSequence > this.idSequence) this.idSequence = copy.idSequence;
  }

  /**
   * Tells the fake that Discord sent the binding an interaction: its token then belongs to
   * `userId`, so an ephemeral follow-up on it is a notice to that person.
   */
  issueInteraction(issue: DiscordInteractionIssue): void {
    this.interactions.set(issue.token, issue);
  }

  /**
   * The next `times` calls to `method` (`'*'` for any) get `fault` instead of a normal answer;
   * `scope` narrows them to one client's or one channel's calls. `times` may be Infinity.
   */
  failNext(
    method: DiscordMethod | '*',
    fault: DiscordFault,
    times = 1,
    scope: DiscordFaultScope = {},
  ): void {
    this.faults.add(method, fault, times, scope);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  setLatencyMs(ms: number): void {
    this.latencyMs = ms;
  }

  get calls(): DiscordApiCall[] {
    return structuredClone(this.callLog);
  }

  callsTo(method: DiscordMethod): DiscordApiCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Current state of every channel message (DMs excluded), in posting order. */
  get messages(): FakeDiscordMessage[] {
    const dms = new Set(this.dmChannels.values());
    return structuredClone([...this.store.values()].filter((m) => !dms.has(m.channel_id)));
  }

  /**
   * The messages of one channel, as `messages` lists them (DMs are notices, not channels):
   * copies only those, so a test polling many channels is not slowed.
   */
  messagesInChannel(channelId: string): FakeDiscordMessage[] {
    if ([...this.dmChannels.values()].includes(channelId)) return [];
    return structuredClone([...this.store.values()].filter((m) => m.channel_id === channelId));
  }

  message(channelId: string, id: string): FakeDiscordMessage | undefined {
    const found = this.store.get(key(channelId, id));
    return found && structuredClone(found);
  }

  get notices(): DiscordNotice[] {
    return structuredClone(this.noticeLog);
  }

  /**
   * An ephemeral answer to an interaction (type 4, flag 64), which the caller of the
   * interactions endpoint saw: Discord shows it to that user alone, like a follow-up.
   */
  showEphemeralResponse(userId: string, content: string, channelId?: string): void {
    this.noticeLog.push({
      userId,
      content,
      via: 'ephemeral_response',
      ...(channelId === undefined ? {} : { channelId }),
      at: new Date(),
    });
  }

  /**
   * G2: the first response to an interaction was a modal (type 9): Discord shows it to that
   * user, or refuses it ("This interaction failed") when malformed, which this throws.
   */
  showModal(
    userId: string,
    channelId: string,
    data: unknown,
    messageId?: string,
  ): FakeDiscordModal {
    const checked = checkDiscordModal(data);
    if (typeof checked === 'string') throw new Error(`Discord refuses the modal: ${checked}`);
    const modal: FakeDiscordModal = {
      ...checked,
      userId,
      channelId,
      ...(messageId === undefined ? {} : { messageId }),
    };
    this.modalLog.push(modal);
    return structuredClone(modal);
  }

  /** Every modal shown so far, oldest first. */
  get modals(): FakeDiscordModal[] {
    return structuredClone(this.modalLog);
  }

  /** What an interaction's `@original` response says now (e.g. the /ask acknowledgement). */
  original(token: string): { content: string; edits: number } | undefined {
    const found = this.originals.get(token);
    return found && { ...found };
  }

  /** The commands registered globally, or on one guild, as the last overwrite left them. */
  commands(guildId?: string): FakeApplicationCommand[] {
    return structuredClone(this.commandSets.get(guildId ?? '') ?? []);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.serve(req, res);
    } catch (error) {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`DiscordApiFake failed: ${error instanceof Error ? error.stack : String(error)}`);
      }
    }
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const raw = await readBody(req);
    const route = API_PATH.exec(url.pathname);
    if (!route || route[2] !== '10') {
      send(res, { status: 404, body: { message: '404: Not Found', code: 0 } });
      return;
    }
    const client = route[1];
    const path = decodeURIComponent(route[3]);
    const httpMethod = (req.method ?? 'GET').toUpperCase();
    const parsed = raw === '' ? {} : safeJson(raw);
    const body =
      typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    const { method, params } = routeOf(httpMethod, path);
    const channel = params.channel ?? this.interactions.get(params.token ?? '')?.channelId;
    const fault = method === 'unknown' ? undefined : this.faults.take(method, client, channel);
    const call: DiscordApiCall = {
      method,
      httpMethod,
      path,
      ...(client === undefined ? {} : { client }),
      ...(channel === undefined ? {} : { channel }),
      body,
      ...(Array.isArray(parsed) ? { list: parsed as unknown[] } : {}),
      at: new Date(),
      ...(fault ? { fault } : {}),
    };
    this.callLog.push(call);

    if (this.latencyMs > 0 && !(await this.http.pause(this.latencyMs, res))) return;
    const dispatch = (): Result =>
      this.dispatch(call, params, url.searchParams, req.headers.authorization);
    if (!fault) {
      send(res, dispatch());
    } else if ('status' in fault) {
      res.writeHead(fault.status, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`fake Discord outage (${fault.status})`);
    } else if ('rateLimit' in fault) {
      send(
        res,
        {
          status: 429,
          body: {
            message: 'You are being rate limited.',
            retry_after: fault.rateLimit,
            global: false,
          },
        },
        { 'Retry-After': String(fault.rateLimit), 'X-RateLimit-Scope': 'user' },
      );
    } else if ('refuse' in fault) {
      send(res, {
        status: fault.refuse.status,
        body: { code: fault.refuse.code, message: fault.refuse.message },
      });
    } else if ('hangMs' in fault) {
      if (!(await this.http.pause(fault.hangMs, res))) return;
      send(res, dispatch());
    } else {
      const result = dispatch();
      if (fault.answerAfterMs === undefined) await this.http.pause(Infinity, res);
      else if (await this.http.pause(fault.answerAfterMs, res)) send(res, result);
    }
  }

  private dispatch(
    call: DiscordApiCall,
    params: Params,
    query: URLSearchParams,
    authorization: string | undefined,
  ): Result {
    const { method, body } = call;
    const webhook = method === 'createFollowup' || method === 'editOriginal';
    if (method === 'unknown') return { status: 404, body: { message: '404: Not Found', code: 0 } };
    if (!webhook) {
      // Webhook (interaction) routes are authorized by their token; everything else by the bot's.
      if (authorization !== `Bot ${this.config.botToken}`) {
        return { status: 401, body: { message: '401: Unauthorized', code: 0 } };
      }
    } else if (params.app !== this.config.applicationId || !params.token) {
      return { status: 401, body: { message: 'Invalid Webhook Token', code: 50027 } };
    }
    switch (method) {
      case 'createMessage':
        return this.createMessage(params.channel!, body, call);
      case 'editMessage':
        return this.editMessage(params.channel!, params.message!, body);
      case 'listMessages':
        return this.listMessages(params.channel!, query);
      case 'createFollowup':
        return this.createFollowup(params.token!, body);
      case 'editOriginal':
        return this.editOriginal(params.token!, body);
      case 'createDm':
        return this.createDm(body);
      case 'overwriteCommands':
        return this.overwriteCommands(params.app!, params.guild, call.list);
      case 'listGuildMembers':
        return this.listGuildMembers(params.guild!, query);
      case 'getMe':
        return {
          status: 200,
          body: {
            id: this.config.applicationId,
            username: DISCORD_FAKE_DEFAULTS.botUsername,
            bot: true,
          },
        };
    }
  }

  /**
   * G1: a guild member with their roles, as "List Guild Members" returns them (reference:
   * discord.com/developers/docs/resources/guild#list-guild-members: `limit` 1–1000, `after` a
   * user id, members in user id order; the app needs the GUILD_MEMBERS intent).
   */
  setGuildMember(
    userId: string,
    roles: readonly string[],
    username = `user${userId.slice(-4)}`,
  ): void {
    this.guildMembers.set(userId, { roles: [...roles], username });
  }

  private listGuildMembers(guildId: string, query: URLSearchParams): Result {
    if (guildId !== this.config.guildId) {
      return { status: 404, body: { message: 'Unknown Guild', code: 10004 } };
    }
    const limit = Number(query.get('limit') ?? '1');
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      return invalidForm('limit', 'int value should be less than or equal to 1000.');
    }
    const after = query.get('after') ?? '0';
    const members = [...this.guildMembers.entries()]
      .filter(([id]) => snowflakeOrder(id, after) > 0)
      .sort(([a], [b]) => snowflakeOrder(a, b))
      .slice(0, limit)
      .map(([id, m]) => ({
        user: { id, username: m.username, global_name: null, avatar: null },
        nick: null,
        roles: [...m.roles],
        joined_at: '2026-01-01T00:00:00.000000+00:00',
        deaf: false,
        mute: false,
        flags: 0,
      }));
    return { status: 200, body: members };
  }

  private createMessage(
    channelId: string,
    body: Record<string, unknown>,
    call: DiscordApiCall,
  ): Result {
    const content = readContent(body, true);
    if ('status' in content) return content;
    const nonce = str(body.nonce);
    if (nonce !== undefined && nonce.length > 25) {
      return invalidForm('nonce', 'Must be 25 or fewer in length.');
    }
    if (nonce !== undefined && body.enforce_nonce === true) {
      const seen = this.nonces.get(key(channelId, nonce));
      const existing = seen && this.store.get(key(channelId, seen.messageId));
      if (seen && existing && Date.now() - seen.at < NONCE_WINDOW_MS) {
        call.nonceReplayOf = existing.id;
        return { status: 200, body: this.wire(existing, true) };
      }
    }
    const message: FakeDiscordMessage = {
      id: this.nextId(),
      channel_id: channelId,
      content: content.content ?? '',
      components: content.components ?? [],
      ...(nonce === undefined ? {} : { nonce }),
      flags: 0,
      edits: 0,
      created_at: new Date(),
    };
    this.store.set(key(channelId, message.id), message);
    if (nonce !== undefined) {
      this.nonces.set(key(channelId, nonce), { messageId: message.id, at: Date.now() });
    }
    const recipient = [...this.dmChannels.entries()].find(([, dm]) => dm === channelId)?.[0];
    if (recipient !== undefined) {
      this.noticeLog.push({
        userId: recipient,
        content: message.content,
        via: 'dm',
        channelId,
        at: new Date(),
      });
    }
    return { status: 200, body: this.wire(message, true) };
  }

  /** Only `content` and `components` are edited; an omitted field stays, `[]` clears buttons. */
  private editMessage(channelId: string, messageId: string, body: Record<string, unknown>): Result {
    const message = this.store.get(key(channelId, messageId));
    if (!message) return { status: 404, body: { message: 'Unknown Message', code: 10008 } };
    const content = readContent(body, false);
    if ('status' in content) return content;
    if (content.content !== undefined) message.content = content.content;
    if (content.components !== undefined) message.components = content.components;
    if (message.content === '' && message.components.length === 0) {
      return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
    }
    message.edits += 1;
    return { status: 200, body: this.wire(message) };
  }

  /**
   * Newest first, as Discord lists them; `limit` 1–100 (default 50), `before` or `after` a
   * snowflake (a message's, or one made from a time). `after` gives the `limit` messages
   * right after it — the oldest of the newer ones — still newest first.
   */
  private listMessages(channelId: string, query: URLSearchParams): Result {
    const limit = Math.min(100, Math.max(1, Number(query.get('limit') ?? 50) || 50));
    const before = query.get('before');
    const after = query.get('after');
    const newestFirst = [...this.store.values()]
      .filter((m) => m.channel_id === channelId)
      .filter((m) => before === null || BigInt(m.id) < BigInt(before))
      .filter((m) => after === null || BigInt(m.id) > BigInt(after))
      .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    const listed = after === null ? newestFirst.slice(0, limit) : newestFirst.slice(-limit);
    return { status: 200, body: listed.map((m) => this.wire(m)) };
  }

  /** Removes a message, as its author deleting it would; false when there was none. */
  deleteMessage(channelId: string, messageId: string): boolean {
    return this.store.delete(key(channelId, messageId));
  }

  /** A message someone else wrote in a channel; returns its id. */
  addUserMessage(channelId: string, authorId: string, content: string): string {
    const id = this.nextId();
    this.store.set(key(channelId, id), {
      id,
      channel_id: channelId,
      content,
      components: [],
      flags: 0,
      edits: 0,
      created_at: new Date(),
      authorId,
    });
    return id;
  }

  private createFollowup(token: string, body: Record<string, unknown>): Result {
    const content = readContent(body, true);
    if ('status' in content) return content;
    const issued = this.interactions.get(token);
    if (!issued) return { status: 401, body: { message: 'Invalid Webhook Token', code: 50027 } };
    const flags = Number(body.flags ?? 0);
    const at = new Date();
    this.followups.push({ token, content: content.content ?? '', flags, at });
    if ((flags & EPHEMERAL) !== 0) {
      this.noticeLog.push({
        userId: issued.userId,
        content: content.content ?? '',
        via: 'ephemeral_followup',
        ...(issued.channelId === undefined ? {} : { channelId: issued.channelId }),
        at,
      });
    }
    return {
      status: 200,
      body: {
        id: this.nextId(),
        channel_id: issued.channelId ?? '',
        content: content.content ?? '',
        components: content.components ?? [],
        flags,
        author: this.author(),
        type: 0,
      },
    };
  }

  private editOriginal(token: string, body: Record<string, unknown>): Result {
    const content = readContent(body, false);
    if ('status' in content) return content;
    const issued = this.interactions.get(token);
    if (!issued) return { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
    const original = this.originals.get(token) ?? { content: '', edits: 0 };
    original.content = content.content ?? original.content;
    original.edits += 1;
    this.originals.set(token, original);
    return {
      status: 200,
      body: {
        id: this.nextId(),
        channel_id: issued.channelId ?? '',
        content: original.content,
        components: [],
        author: this.author(),
        type: 20,
      },
    };
  }

  private createDm(body: Record<string, unknown>): Result {
    const recipient = str(body.recipient_id);
    if (recipient === undefined) return invalidForm('recipient_id', 'This field is required');
    let channel = this.dmChannels.get(recipient);
    if (channel === undefined) {
      channel = this.nextId();
      this.dmChannels.set(recipient, channel);
    }
    return {
      status: 200,
      body: { id: channel, type: 1, recipients: [{ id: recipient, username: recipient }] },
    };
  }

  /**
   * Replaces the scope's commands with the list sent. Discord keeps a command's id when one
   * of the same name and type is overwritten, so a re-run changes nothing visible.
   */
  private overwriteCommands(
    app: string,
    guild: string | undefined,
    list: unknown[] | undefined,
  ): Result {
    if (app !== this.config.applicationId) {
      return { status: 403, body: { message: 'Missing Access', code: 50001 } };
    }
    if (list === undefined) return invalidForm('_root', 'Must be an array of commands');
    if (list.length > 100) return invalidForm('_root', 'Must be 100 or fewer in length.');
    const scope = guild ?? '';
    const before = this.commandSets.get(scope) ?? [];
    const commands: FakeApplicationCommand[] = [];
    for (const [index, raw] of list.entries()) {
      const problem = commandProblem(raw);
      if (problem) return invalidForm(String(index), problem);
      const command = raw as Omit<FakeApplicationCommand, 'id' | 'application_id' | 'version'>;
      const type = command.type ?? 1;
      const kept = before.find((c) => c.name === command.name && c.type === type);
      commands.push({
        ...structuredClone(command),
        type,
        id: kept?.id ?? this.nextId(),
        application_id: app,
        ...(guild === undefined ? {} : { guild_id: guild }),
        version: this.nextId(),
      });
    }
    this.commandSets.set(scope, commands);
    return { status: 200, body: commands };
  }

  /**
   * The message as Discord answers it. Discord does not store the nonce: it is echoed in the
   * create response (and the gateway's MESSAGE_CREATE) only, never when messages are read back.
   */
  private wire(message: FakeDiscordMessage, created = false): Record<string, unknown> {
    return {
      id: message.id,
      channel_id: message.channel_id,
      type: 0,
      content: message.content,
      components: message.components,
      author:
        message.authorId === undefined
          ? this.author()
          : { id: message.authorId, username: `user-${message.authorId}`, bot: false },
      timestamp: message.created_at.toISOString(),
      edited_timestamp: message.edits > 0 ? new Date().toISOString() : null,
      flags: message.flags,
      ...(created && message.nonce !== undefined ? { nonce: message.nonce } : {}),
    };
  }

  private author(): Record<string, unknown> {
    return {
      id: this.config.applicationId,
      username: DISCORD_FAKE_DEFAULTS.botUsername,
      bot: true,
    };
  }

  /** Snowflake-shaped, increasing. */
  /**
   * Snowflakes as Discord makes them: the milliseconds since 2015 above bit 22, so that
   * `before` / `after` a snowflake of a moment select by time as they do on Discord.
   */
  private nextId(): string {
    const now = (BigInt(Date.now()) - 1_420_070_400_000n) << 22n;
    this.idSequence = now > this.idSequence ? now : this.idSequence + 1n;
    return String(this.idSequence);
  }
}

interface Params {
  channel?: string;
  message?: string;
  app?: string;
  token?: string;
  guild?: string;
}

function routeOf(
  httpMethod: string,
  path: string,
): { method: DiscordMethod | 'unknown'; params: Params } {
  let m: RegExpExecArray | null;
  if ((m = /^\/channels\/(\d+)\/messages$/.exec(path))) {
    if (httpMethod === 'POST') return { method: 'createMessage', params: { channel: m[1] } };
    if (httpMethod === 'GET') return { method: 'listMessages', params: { channel: m[1] } };
  }
  if ((m = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path)) && httpMethod === 'PATCH') {
    return { method: 'editMessage', params: { channel: m[1], message: m[2] } };
  }
  if ((m = /^\/webhooks\/(\d+)\/([^/]+)$/.exec(path)) && httpMethod === 'POST') {
    return { method: 'createFollowup', params: { app: m[1], token: m[2] } };
  }
  if (
    (m = /^\/webhooks\/(\d+)\/([^/]+)\/messages\/@original$/.exec(path)) &&
    httpMethod === 'PATCH'
  ) {
    return { method: 'editOriginal', params: { app: m[1], token: m[2] } };
  }
  if (path === '/users/@me/channels' && httpMethod === 'POST')
    return { method: 'createDm', params: {} };
  if (path === '/users/@me' && httpMethod === 'GET') return { method: 'getMe', params: {} };
  if ((m = /^\/guilds\/(\d+)\/members$/.exec(path)) && httpMethod === 'GET') {
    return { method: 'listGuildMembers', params: { guild: m[1] } };
  }
  if (
    (m = /^\/applications\/(\d+)(?:\/guilds\/(\d+))?\/commands$/.exec(path)) &&
    httpMethod === 'PUT'
  ) {
    return {
      method: 'overwriteCommands',
      params: { app: m[1], ...(m[2] === undefined ? {} : { guild: m[2] }) },
    };
  }
  return { method: 'unknown', params: {} };
}

/** Snowflakes compare as numbers: a shorter one is smaller, equal lengths compare as text. */
function snowflakeOrder(a: string, b: string): number {
  return a.length === b.length ? (a < b ? -1 : a > b ? 1 : 0) : a.length - b.length;
}

/** Discord's limits for content and legacy components (≤ 5 rows of ≤ 5 buttons). */
function readContent(
  body: Record<string, unknown>,
  creating: boolean,
): { content?: string; components?: DiscordActionRow[] } | Result {
  const content = body.content === null ? '' : str(body.content);
  if (content !== undefined && content.length > MAX_CONTENT) {
    return invalidForm('content', `Must be ${MAX_CONTENT} or fewer in length.`);
  }
  let components: DiscordActionRow[] | undefined;
  if (body.components !== undefined && body.components !== null) {
    if (!Array.isArray(body.components)) return invalidForm('components', 'Must be an array');
    const problem = validateComponents(body.components);
    if (problem) return invalidForm('components', problem);
    components = body.components as DiscordActionRow[];
  }
  if (creating && !content && (components === undefined || components.length === 0)) {
    return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
  }
  return {
    ...(content === undefined ? {} : { content }),
    ...(components === undefined ? {} : { components }),
  };
}

function validateComponents(rows: unknown[]): string | undefined {
  if (rows.length > 5) return 'Must be 5 or fewer in length.';
  const ids = new Set<string>();
  for (const row of rows as Array<Partial<DiscordActionRow>>) {
    if (row.type !== 1 || !Array.isArray(row.components)) return 'Expected an action row';
    if (row.components.length < 1 || row.components.length > 5) {
      return 'An action row holds 1 to 5 buttons';
    }
    for (const button of row.components) {
      if (button.type !== 2) return 'Expected a button';
      if (![1, 2, 3, 4, 5].includes(button.style)) return 'Invalid button style';
      if (button.label !== undefined && button.label.length > 80) return 'Label over 80';
      if (button.style === 5) continue;
      const id = button.custom_id;
      if (typeof id !== 'string' || id.length < 1 || id.length > 100) {
        return 'custom_id must be 1 to 100 characters';
      }
      if (ids.has(id)) return 'Component custom id cannot be duplicated';
      ids.add(id);
    }
  }
  return undefined;
}

/** Discord's rules for a chat input command and its options (names, lengths, types). */
function commandProblem(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'Expected a command';
  const command = raw as Record<string, unknown>;
  const type = command.type ?? 1;
  if (![1, 2, 3, 4].includes(type as number)) return 'Invalid command type';
  if (typeof command.name !== 'string' || !COMMAND_NAME.test(command.name)) {
    return 'Command name must be 1 to 32 lower-case letters, digits, - or _';
  }
  const description = command.description;
  if (
    type === 1 &&
    (typeof description !== 'string' || description.length < 1 || description.length > 100)
  ) {
    return 'Description must be 1 to 100 characters';
  }
  const options = command.options ?? [];
  if (!Array.isArray(options) || options.length > 25) return 'Options must be at most 25';
  for (const option of options as Array<Record<string, unknown>>) {
    if (typeof option.name !== 'string' || !COMMAND_NAME.test(option.name)) {
      return 'Option name must be 1 to 32 lower-case letters, digits, - or _';
    }
    if (
      !Number.isInteger(option.type) ||
      (option.type as number) < 1 ||
      (option.type as number) > 11
    ) {
      return 'Invalid option type';
    }
    const text = option.description;
    if (typeof text !== 'string' || text.length < 1 || text.length > 100) {
      return 'Option description must be 1 to 100 characters';
    }
  }
  return undefined;
}

function invalidForm(field: string, message: string): Result {
  return {
    status: 400,
    body: {
      code: 50035,
      message: 'Invalid Form Body',
      errors: { [field]: { _errors: [{ code: 'BASE_TYPE_INVALID', message }] } },
    },
  };
}

function send(res: ServerResponse, result: Result, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(result.status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(result.body));
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

function key(channel: string, id: string): string {
  return `${channel}/${id}`;
}

function str(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}
