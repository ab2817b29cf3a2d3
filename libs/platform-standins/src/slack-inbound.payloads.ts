import { SLACK_FAKE_DEFAULTS } from './slack-api.fake';
import type { SlackBlock } from './slack-blocks';

/**
 * Builders for what Slack POSTs to the binding: `block_actions` interactions (reference §1.5)
 * and Events API envelopes. Ids default to the fake's identity so a payload lines up with
 * messages the fake holds.
 */

const VERIFICATION_TOKEN = 'fake-verification-token';

export interface BlockActionsOptions {
  teamId: string;
  channelId: string;
  messageTs: string;
  threadTs?: string;
  userId: string;
  userName?: string;
  actionId: string;
  value: string;
  actionTs: string;
  blockId?: string;
  buttonText?: string;
  style?: 'primary' | 'danger';
  /** The clicked message's content; defaults to one actions block holding the clicked button. */
  messageText?: string;
  blocks?: SlackBlock[];
  teamDomain?: string;
  channelName?: string;
  apiAppId?: string;
  botUserId?: string;
  botId?: string;
  /** Ephemeral messages carry no `message` in the payload; only `container` names them. */
  isEphemeral?: boolean;
  triggerId?: string;
  responseUrl?: string;
}

export function blockActionsPayload(o: BlockActionsOptions): Record<string, unknown> {
  const blockId = o.blockId ?? 'tollgate-actions';
  const text = { type: 'plain_text', text: o.buttonText ?? o.actionId, emoji: true };
  const style = o.style ? { style: o.style } : {};
  const blocks = o.blocks ?? [
    {
      type: 'actions',
      block_id: blockId,
      elements: [{ type: 'button', action_id: o.actionId, value: o.value, text, ...style }],
    },
  ];
  const thread = o.threadTs !== undefined ? { thread_ts: o.threadTs } : {};
  const userName = o.userName ?? o.userId.toLowerCase();
  return {
    type: 'block_actions',
    user: { id: o.userId, username: userName, name: userName, team_id: o.teamId },
    api_app_id: o.apiAppId ?? SLACK_FAKE_DEFAULTS.appId,
    token: VERIFICATION_TOKEN,
    container: {
      type: 'message',
      message_ts: o.messageTs,
      channel_id: o.channelId,
      is_ephemeral: o.isEphemeral ?? false,
      ...thread,
    },
    trigger_id: o.triggerId ?? `${o.actionTs.replace('.', '')}.${o.teamId}.trigger`,
    team: { id: o.teamId, domain: o.teamDomain ?? SLACK_FAKE_DEFAULTS.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: o.channelId, name: o.channelName ?? o.channelId.toLowerCase() },
    ...(o.isEphemeral
      ? {}
      : {
          message: {
            type: 'message',
            user: o.botUserId ?? SLACK_FAKE_DEFAULTS.botUserId,
            bot_id: o.botId ?? SLACK_FAKE_DEFAULTS.botId,
            ts: o.messageTs,
            ...thread,
            text: o.messageText ?? '',
            blocks,
          },
        }),
    state: { values: {} },
    response_url:
      o.responseUrl ??
      `https://hooks.slack.com/actions/${o.teamId}/${o.actionTs.replace('.', '')}/fake`,
    actions: [
      {
        type: 'button',
        action_id: o.actionId,
        block_id: blockId,
        value: o.value,
        text,
        action_ts: o.actionTs,
        ...style,
      },
    ],
  };
}

/** The request body Slack sends for interactions: a single form field `payload` holding JSON. */
export function interactionFormBody(payload: Record<string, unknown>): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

export interface EventCallbackOptions {
  teamId: string;
  event: Record<string, unknown>;
  eventId: string;
  eventTime?: number;
  apiAppId?: string;
  botUserId?: string;
}

export function eventCallback(o: EventCallbackOptions): Record<string, unknown> {
  const botUserId = o.botUserId ?? SLACK_FAKE_DEFAULTS.botUserId;
  return {
    token: VERIFICATION_TOKEN,
    team_id: o.teamId,
    api_app_id: o.apiAppId ?? SLACK_FAKE_DEFAULTS.appId,
    event: o.event,
    type: 'event_callback',
    event_id: o.eventId,
    event_time: o.eventTime ?? Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: o.teamId,
        user_id: botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
  };
}

export function urlVerification(challenge: string): Record<string, unknown> {
  return { token: VERIFICATION_TOKEN, challenge, type: 'url_verification' };
}

export interface UserMessageOptions {
  channelId: string;
  userId: string;
  text: string;
  ts: string;
  threadTs?: string;
  teamId?: string;
}

export function appMentionEvent(o: UserMessageOptions): Record<string, unknown> {
  return { type: 'app_mention', ...userMessageFields(o) };
}

/** A user's message in a public channel; pass `threadTs` for a reply in a thread. */
export function channelMessageEvent(o: UserMessageOptions): Record<string, unknown> {
  return { type: 'message', channel_type: 'channel', ...userMessageFields(o) };
}

export function directMessageEvent(o: UserMessageOptions): Record<string, unknown> {
  return { type: 'message', channel_type: 'im', ...userMessageFields(o) };
}

export interface BotMessageOptions {
  channelId: string;
  text: string;
  ts: string;
  threadTs?: string;
  botId?: string;
  botUserId?: string;
  channelType?: 'channel' | 'im';
}

/** A message posted by an app (ours, by default): `bot_id` set, the bot user as `user`. */
export function botMessageEvent(o: BotMessageOptions): Record<string, unknown> {
  return {
    type: 'message',
    channel_type: o.channelType ?? 'channel',
    channel: o.channelId,
    user: o.botUserId ?? SLACK_FAKE_DEFAULTS.botUserId,
    bot_id: o.botId ?? SLACK_FAKE_DEFAULTS.botId,
    app_id: SLACK_FAKE_DEFAULTS.appId,
    text: o.text,
    ts: o.ts,
    event_ts: o.ts,
    ...(o.threadTs !== undefined ? { thread_ts: o.threadTs } : {}),
  };
}

export interface MessageChangedOptions {
  channelId: string;
  /** When the change happened; Slack gives the event its own ts. */
  eventTs: string;
  message: Record<string, unknown> & { ts: string; text?: string };
  previousMessage?: Record<string, unknown>;
  channelType?: 'channel' | 'im';
}

export function messageChangedEvent(o: MessageChangedOptions): Record<string, unknown> {
  return {
    type: 'message',
    subtype: 'message_changed',
    hidden: true,
    channel: o.channelId,
    channel_type: o.channelType ?? 'channel',
    ts: o.eventTs,
    event_ts: o.eventTs,
    message: { type: 'message', ...o.message },
    previous_message: { type: 'message', ...(o.previousMessage ?? { ts: o.message.ts }) },
  };
}

export interface MessageDeletedOptions {
  channelId: string;
  eventTs: string;
  deletedTs: string;
  previousMessage?: Record<string, unknown>;
  channelType?: 'channel' | 'im';
}

export function messageDeletedEvent(o: MessageDeletedOptions): Record<string, unknown> {
  return {
    type: 'message',
    subtype: 'message_deleted',
    hidden: true,
    channel: o.channelId,
    channel_type: o.channelType ?? 'channel',
    ts: o.eventTs,
    event_ts: o.eventTs,
    deleted_ts: o.deletedTs,
    previous_message: { type: 'message', ...(o.previousMessage ?? { ts: o.deletedTs }) },
  };
}

function userMessageFields(o: UserMessageOptions): Record<string, unknown> {
  return {
    channel: o.channelId,
    user: o.userId,
    text: o.text,
    ts: o.ts,
    event_ts: o.ts,
    client_msg_id: `fake-${o.ts}`,
    ...(o.teamId !== undefined ? { team: o.teamId } : {}),
    ...(o.threadTs !== undefined ? { thread_ts: o.threadTs } : {}),
  };
}
