import {
  DISCORD_FAKE_DEFAULTS,
  type DiscordApiCall,
  type DiscordApiFakeOptions,
  type DiscordNotice,
  type FakeDiscordMessage,
} from './discord-api.types';
import { invalidForm, key, readContent, str, type Result } from './discord-api.readers';

/**
 * The Discord stand-in's channel messages, their nonces, the DM channels and the notices they
 * carry, with the routes that read and write them (create, edit, list, open a DM). It also
 * hands out the snowflake ids every route uses, so that one sequence orders them all. Apart
 * from `DiscordApiFake`, which delegates to it and snapshots, restores and resets its state.
 */

const NONCE_WINDOW_MS = 5 * 60_000;

export class DiscordMessageStore {
  // Not private: DiscordApiFake snapshots, restores and resets them, and the interaction
  // routes add their notices to `noticeLog`.
  store = new Map<string, FakeDiscordMessage>();
  nonces = new Map<string, { messageId: string; at: number }>();
  noticeLog: DiscordNotice[] = [];
  dmChannels = new Map<string, string>();
  // Never reset: an id handed out before reset() must not name a different message after it.
  idSequence = 0n;

  constructor(private readonly config: Required<DiscordApiFakeOptions>) {}

  /** Clears messages, nonces, notices and DM channels; the id sequence goes on. */
  reset(): void {
    this.store = new Map();
    this.nonces = new Map();
    this.noticeLog = [];
    this.dmChannels = new Map();
  }

  channelMessages(): FakeDiscordMessage[] {
    const dms = new Set(this.dmChannels.values());
    return structuredClone([...this.store.values()].filter((m) => !dms.has(m.channel_id)));
  }

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

  createMessage(channelId: string, body: Record<string, unknown>, call: DiscordApiCall): Result {
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
  editMessage(channelId: string, messageId: string, body: Record<string, unknown>): Result {
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
  listMessages(channelId: string, query: URLSearchParams): Result {
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

  createDm(body: Record<string, unknown>): Result {
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

  author(): Record<string, unknown> {
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
  nextId(): string {
    const now = (BigInt(Date.now()) - 1_420_070_400_000n) << 22n;
    this.idSequence = now > this.idSequence ? now : this.idSequence + 1n;
    return String(this.idSequence);
  }
}
