// The Slack stand-in's workspace: its channel messages, the logs of successful posts, edits and
// ephemeral notices, the ts sequence, and the method handlers that read and change them
// (chat.postMessage, chat.update, chat.postEphemeral, conversations.replies / .history).
// Separate from `SlackApiFake`, which only routes HTTP calls, injects faults and delegates here.
import {
  byTs,
  flag,
  inWindow,
  paginate,
  readContent,
  readMetadata,
  str,
  type SlackResult,
} from './slack-api.args';
import type {
  FakeSlackMessage,
  SlackApiFakeOptions,
  SlackApiFakeSnapshot,
  SlackArgs,
  SlackEdit,
  SlackEphemeral,
  SlackMessageFilter,
  SlackMessageVersion,
  SlackPost,
  SlackUserMessage,
} from './slack-api.types';

/** The fake's options with their defaults applied; the store reads its identity and channels. */
export type SlackFakeConfig = Required<
  Omit<SlackApiFakeOptions, 'channels' | 'firstTsSeconds' | 'methodLimits'>
> & {
  firstTsSeconds?: number;
} & {
  channels: readonly string[] | undefined;
};

export class SlackMessageStore {
  private store = new Map<string, FakeSlackMessage>();
  private postLog: SlackPost[] = [];
  private editLog: SlackEdit[] = [];
  private ephemeralLog: SlackEphemeral[] = [];
  // Never reset: a ts handed out before reset() must not name a different message after it.
  private tsSequence = 0;
  private lastTsMicros = 0;

  constructor(private readonly config: SlackFakeConfig) {}

  /** Clears messages, posts, edits and ephemerals; the ts sequence goes on. */
  reset(): void {
    this.store = new Map();
    this.postLog = [];
    this.editLog = [];
    this.ephemeralLog = [];
  }

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

  /** How many successful posts and edits so far, without copying the logs. */
  tally(): { posts: number; edits: number } {
    return { posts: this.postLog.length, edits: this.editLog.length };
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

  /** Keeps an ephemeral notice shown to one user (a response_url reply). */
  recordEphemeral(ephemeral: SlackEphemeral): void {
    this.ephemeralLog.push(ephemeral);
  }

  postMessage(args: SlackArgs): SlackResult {
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
  update(args: SlackArgs): SlackResult {
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

  postEphemeral(args: SlackArgs): SlackResult {
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
  replies(args: SlackArgs): SlackResult {
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
  history(args: SlackArgs): SlackResult {
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

  nextTs(): string {
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
