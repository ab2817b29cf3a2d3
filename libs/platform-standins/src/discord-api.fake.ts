import { LocalHttpServer } from './local-http-server';
import type { FakeDiscordModal } from './discord-modals.fake';
import {
  DISCORD_FAKE_DEFAULTS,
  type DiscordApiCall,
  type DiscordApiFakeOptions,
  type DiscordApiFakeSnapshot,
  type DiscordFault,
  type DiscordFaultScope,
  type DiscordInteractionIssue,
  type DiscordMethod,
  type DiscordNotice,
  type FakeApplicationCommand,
  type FakeDiscordMessage,
} from './discord-api.types';
import { DiscordMessageStore } from './discord-message-store';
import { DiscordInteractionRoutes } from './discord-interaction.routes';
import { DiscordGuildRoutes } from './discord-guild.routes';
import { DiscordRequestHandler } from './discord-api.server';

export * from './discord-api.types';

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

const CLIENT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export class DiscordApiFake {
  private readonly config: Required<DiscordApiFakeOptions>;
  private readonly http = new LocalHttpServer('DiscordApiFake', (req, res) =>
    this.requests.handle(req, res),
  );
  // The state and the routes that change it, by concern; DiscordApiFake delegates to them.
  private readonly messageStore: DiscordMessageStore;
  private readonly interactionRoutes: DiscordInteractionRoutes;
  private readonly guildRoutes: DiscordGuildRoutes;
  private readonly requests: DiscordRequestHandler;

  private get baseUrl(): string | undefined {
    return this.http.url;
  }

  constructor(options: DiscordApiFakeOptions = {}) {
    this.config = { ...DISCORD_FAKE_DEFAULTS, ...options };
    this.messageStore = new DiscordMessageStore(this.config);
    this.interactionRoutes = new DiscordInteractionRoutes(this.messageStore);
    this.guildRoutes = new DiscordGuildRoutes(this.config, this.messageStore);
    this.requests = new DiscordRequestHandler(
      this.http,
      this.config,
      this.messageStore,
      this.interactionRoutes,
      this.guildRoutes,
    );
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
    this.requests.reset();
    this.messageStore.reset();
    this.interactionRoutes.reset();
    this.guildRoutes.reset();
  }

  /**
   * What the guild holds (messages, notices, interaction responses, nonces, DM channels, the id
   * sequence), for `restore` in another process: the sandbox keeps its conversations across
   * `npm start`s. Calls, faults and latency are not part of it. Store it with `v8.serialize`.
   */
  snapshot(): DiscordApiFakeSnapshot {
    const { messageStore: messages, interactionRoutes: interactions } = this;
    return structuredClone({
      messages: messages.store,
      nonces: messages.nonces,
      notices: messages.noticeLog,
      originals: interactions.originals,
      followups: interactions.followups,
      interactions: interactions.interactions,
      dmChannels: messages.dmChannels,
      idSequence: messages.idSequence,
    });
  }

  restore(snapshot: DiscordApiFakeSnapshot): void {
    const { messageStore: messages, interactionRoutes: interactions } = this;
    const copy = structuredClone(snapshot);
    messages.store = copy.messages;
    messages.nonces = copy.nonces;
    messages.noticeLog = copy.notices;
    interactions.originals = copy.originals;
    interactions.followups = copy.followups;
    interactions.interactions = copy.interactions;
    messages.dmChannels = copy.dmChannels;
    if (copy.idSequence > messages.idSequence) messages.idSequence = copy.idSequence;
  }

  /**
   * Tells the fake that Discord sent the binding an interaction: its token then belongs to
   * `userId`, so an ephemeral follow-up on it is a notice to that person.
   */
  issueInteraction(issue: DiscordInteractionIssue): void {
    this.interactionRoutes.issueInteraction(issue);
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
    this.requests.faults.add(method, fault, times, scope);
  }

  clearFaults(): void {
    this.requests.faults.clear();
  }

  setLatencyMs(ms: number): void {
    this.requests.latencyMs = ms;
  }

  get calls(): DiscordApiCall[] {
    return structuredClone(this.requests.callLog);
  }

  callsTo(method: DiscordMethod): DiscordApiCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Current state of every channel message (DMs excluded), in posting order. */
  get messages(): FakeDiscordMessage[] {
    return this.messageStore.channelMessages();
  }

  /**
   * The messages of one channel, as `messages` lists them (DMs are notices, not channels):
   * copies only those, so a test polling many channels is not slowed.
   */
  messagesInChannel(channelId: string): FakeDiscordMessage[] {
    return this.messageStore.messagesInChannel(channelId);
  }

  message(channelId: string, id: string): FakeDiscordMessage | undefined {
    return this.messageStore.message(channelId, id);
  }

  get notices(): DiscordNotice[] {
    return this.messageStore.notices;
  }

  /**
   * An ephemeral answer to an interaction (type 4, flag 64), which the caller of the
   * interactions endpoint saw: Discord shows it to that user alone, like a follow-up.
   */
  showEphemeralResponse(userId: string, content: string, channelId?: string): void {
    this.interactionRoutes.showEphemeralResponse(userId, content, channelId);
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
    return this.interactionRoutes.showModal(userId, channelId, data, messageId);
  }

  /** Every modal shown so far, oldest first. */
  get modals(): FakeDiscordModal[] {
    return this.interactionRoutes.modals;
  }

  /** What an interaction's `@original` response says now (e.g. the /ask acknowledgement). */
  original(token: string): { content: string; edits: number } | undefined {
    return this.interactionRoutes.original(token);
  }

  /** The commands registered globally, or on one guild, as the last overwrite left them. */
  commands(guildId?: string): FakeApplicationCommand[] {
    return this.guildRoutes.commands(guildId);
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
    this.guildRoutes.setGuildMember(userId, roles, username);
  }

  /** Removes a message, as its author deleting it would; false when there was none. */
  deleteMessage(channelId: string, messageId: string): boolean {
    return this.messageStore.deleteMessage(channelId, messageId);
  }

  /** A message someone else wrote in a channel; returns its id. */
  addUserMessage(channelId: string, authorId: string, content: string): string {
    return this.messageStore.addUserMessage(channelId, authorId, content);
  }
}
