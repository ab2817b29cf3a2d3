import type { FaultScope, TransportFault } from './fault-queue';

/**
 * The public shapes of the Discord stand-in: its options and defaults, the calls it records,
 * the messages, notices and commands it keeps, and its snapshot. Apart from the class so the
 * route handlers in the other `discord-*` files can share them without importing the fake.
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

/**
 * A transport fault (a rate limit answers with Discord's JSON body beside `Retry-After`), or a
 * 4xx refusal, e.g. `{ status: 404, code: 10003, message: 'Unknown Channel' }`.
 */
export type DiscordFault =
  TransportFault | { refuse: { status: number; code: number; message: string } };

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
