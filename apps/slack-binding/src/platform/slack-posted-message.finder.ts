import type { MessageRef } from '@tollgate/binding-core';
import type { Conversation } from '@tollgate/protocol';
import { WebAPIPlatformError, type WebClient } from '@slack/web-api';

/** What a message found on reading back carries: its ts, author and metadata. */
interface ListedMessage {
  readonly ts?: string;
  readonly user?: string;
  readonly bot_id?: string;
  readonly metadata?: { readonly event_type?: string; readonly event_payload?: unknown };
}

export interface SlackMetadataQuery {
  readonly eventType: string;
  /** The payload field naming the thing looked for, e.g. `promptRef` or `outputId`. */
  readonly field: string;
  readonly value: string;
}

/**
 * A post that timed out may still have landed. Slack has no idempotency key on
 * `chat.postMessage`, so every post carries message metadata naming what it shows, and a retry
 * reads the conversation back to look for it. 200 messages a page, as Slack recommends. When
 * the caller knows when the post was set out on, the read goes back to that time (`oldest`)
 * however busy the channel was meanwhile (R3); otherwise no further than this many pages.
 */
const PAGE_SIZE = 200;
const MAX_PAGES = 10;
/** Past this many pages even a time window is given up on: the channel is being flooded. */
const MAX_WINDOW_PAGES = 500;
/** Replicas' clocks and Slack's differ a little: the window opens this much earlier. */
export const CLOCK_MARGIN_MS = 5 * 60_000;

/** Finds the bot's own message in a conversation by the metadata it was posted with. */
export class SlackPostedMessageFinder {
  private self?: Promise<{ botId?: string; userId?: string }>;

  constructor(private readonly client: WebClient) {}

  async find(
    conversation: Conversation,
    query: SlackMetadataQuery,
    since?: Date,
    /** A message to pass over: the one already tracked, when another is looked for. */
    exceptTs?: string,
  ): Promise<MessageRef | undefined> {
    const self = await this.identity();
    for await (const message of this.messagesOf(conversation, since)) {
      const own =
        (self.botId !== undefined && message.bot_id === self.botId) ||
        (self.userId !== undefined && message.user === self.userId);
      if (own && message.ts !== undefined && message.ts !== exceptTs && carries(message, query)) {
        return { channelId: conversation.channelId, messageId: message.ts };
      }
    }
    return undefined;
  }

  /**
   * The thread's replies (oldest first) for a threaded conversation, the channel's top-level
   * history (newest first) otherwise. A thread Slack no longer knows holds nothing of ours.
   */
  private async *messagesOf(
    conversation: Conversation,
    since?: Date,
  ): AsyncGenerator<ListedMessage> {
    const channel = conversation.channelId;
    const thread = conversation.threadId;
    const oldest = since === undefined ? undefined : slackTs(since.getTime() - CLOCK_MARGIN_MS);
    const maxPages = since === undefined ? MAX_PAGES : MAX_WINDOW_PAGES;
    let cursor: string | undefined;
    for (let page = 0; page < maxPages; page += 1) {
      const common = {
        channel,
        include_all_metadata: true,
        limit: PAGE_SIZE,
        ...(oldest === undefined ? {} : { oldest, inclusive: true }),
        ...(cursor ? { cursor } : {}),
      };
      let listed: { messages?: ListedMessage[]; response_metadata?: { next_cursor?: string } };
      try {
        listed = thread
          ? await this.client.conversations.replies({ ...common, ts: thread })
          : await this.client.conversations.history(common);
      } catch (error) {
        if (error instanceof WebAPIPlatformError && error.data.error === 'thread_not_found') return;
        throw error;
      }
      yield* listed.messages ?? [];
      cursor = listed.response_metadata?.next_cursor;
      if (!cursor) return;
    }
  }

  /**
   * Another app (a staging install of Tollgate in the same channel, say) may post the same
   * metadata, so only the bot's own messages count. Asked once per process.
   */
  private identity(): Promise<{ botId?: string; userId?: string }> {
    this.self ??= this.client.auth.test().then(
      (who) => ({ botId: who.bot_id, userId: who.user_id }),
      (error: unknown) => {
        this.self = undefined;
        throw error;
      },
    );
    return this.self;
  }
}

/** Slack's ts form: seconds with six decimals. */
function slackTs(epochMs: number): string {
  return (Math.max(0, epochMs) / 1000).toFixed(6);
}

function carries(message: ListedMessage, query: SlackMetadataQuery): boolean {
  const metadata = message.metadata;
  if (metadata?.event_type !== query.eventType) return false;
  const payload = metadata.event_payload;
  return (
    typeof payload === 'object' &&
    payload !== null &&
    (payload as Record<string, unknown>)[query.field] === query.value
  );
}
