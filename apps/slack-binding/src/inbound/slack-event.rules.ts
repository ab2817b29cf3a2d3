import type { Conversation, Person } from '@tollgate/protocol';

/** The parts of an Events API message event Tollgate reads. */
export interface SlackMessageEvent {
  readonly type: string;
  readonly subtype?: string;
  readonly user?: string;
  readonly bot_id?: string;
  readonly text?: string;
  readonly ts?: string;
  readonly thread_ts?: string;
  readonly channel?: string;
  readonly channel_type?: string;
}

export type SlackEventVerdict =
  | { readonly kind: 'forward'; readonly message: InboundSlackMessage }
  /** A reply in a thread: it counts only when that thread already has a session. */
  | { readonly kind: 'forward_if_session'; readonly message: InboundSlackMessage }
  | { readonly kind: 'ignore'; readonly reason: string };

export interface InboundSlackMessage {
  readonly conversation: Conversation;
  readonly sender: Person;
  readonly text: string;
  /**
   * Built from the message's own ts, not the event id: Slack delivers one mention as both
   * `app_mention` and `message`, and the session service deduplicates them by this id.
   */
  readonly commandId: string;
}

/** Subtypes that are still a person writing; every other subtype is an edit, a join, a bot… */
const COUNTED_SUBTYPES = new Set(['thread_broadcast', 'file_share']);

/** docs/protocol.md §1.1's conversation rules for Slack. */
export function classifySlackEvent(teamId: string, event: SlackMessageEvent): SlackEventVerdict {
  if (event.type !== 'app_mention' && event.type !== 'message') {
    return { kind: 'ignore', reason: `event type ${event.type}` };
  }
  if (event.bot_id) return { kind: 'ignore', reason: 'posted by a bot' };
  if (event.subtype && !COUNTED_SUBTYPES.has(event.subtype)) {
    return { kind: 'ignore', reason: `subtype ${event.subtype}` };
  }
  if (!event.user || !event.channel || !event.ts) {
    return { kind: 'ignore', reason: 'no author, channel or ts' };
  }
  const message: InboundSlackMessage = {
    // A top-level message starts a thread rooted at its own ts; the bot answers there. An
    // empty thread_ts is no thread: taken as one, it would open a channel-wide session.
    conversation: {
      platform: 'slack',
      workspaceId: teamId,
      channelId: event.channel,
      threadId: event.thread_ts || event.ts,
    },
    sender: { id: event.user },
    text: withoutLeadingMentions(event.text ?? ''),
    commandId: `slack:${teamId}:${event.channel}:${event.ts}`,
  };
  if (event.type === 'app_mention') return { kind: 'forward', message };
  if (event.channel_type === 'im') return { kind: 'forward', message };
  if (event.thread_ts && event.thread_ts !== event.ts)
    return { kind: 'forward_if_session', message };
  return { kind: 'ignore', reason: 'a channel message not addressed to the bot' };
}

/** `<@U123> !write_note {…}`: the mention is how the user addressed the bot, not the text. */
function withoutLeadingMentions(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/^\s*(<@[A-Z0-9]+>\s*)+/, ''))
    .join('\n')
    .trim();
}
