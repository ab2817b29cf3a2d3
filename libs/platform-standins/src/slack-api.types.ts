// The Slack stand-in's public vocabulary: its options, the faults it can be told to inject, and
// the records and snapshots it hands back. Kept apart from the fake so that readers of the
// stand-in's state (tests, the sandbox) find its shapes in one place, free of HTTP plumbing.
import type { FaultScope, TransportFault } from './fault-queue';
import type { SlackBlock } from './slack-blocks';

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

/** A transport fault, or `ok: false` with this `error` (`channel_not_found`, …). */
export type SlackFault = TransportFault | { error: string };

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
