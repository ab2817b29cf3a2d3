import { randomBytes } from 'node:crypto';
import { MATTERMOST_FAKE_DEFAULTS } from './mattermost-api.fake';

/**
 * Builders for what Mattermost POSTs to the binding: the action callback it sends to a
 * button's `integration.url` (PostActionIntegrationRequest, reference §3.4), the slash command
 * body and the outgoing webhook body (both form-encoded, carrying the integration's token).
 */

export interface ActionCallbackOptions {
  userId: string;
  userName?: string;
  channelId: string;
  postId: string;
  /**
   * The button's stored `integration.context` (`sessionId`, `callId`, `optionKey`, the post's
   * `nonce` and `sig`), sent back exactly as stored: read it from the posted message's props.
   */
  context: Record<string, unknown>;
  teamId?: string;
  triggerId?: string;
  channelName?: string;
  teamDomain?: string;
}

/** The JSON body Mattermost POSTs to `integration.url` when a button is clicked. */
export function actionCallbackBody(o: ActionCallbackOptions): Record<string, unknown> {
  return {
    user_id: o.userId,
    user_name: o.userName ?? o.userId,
    channel_id: o.channelId,
    channel_name: o.channelName ?? 'town-square',
    team_id: o.teamId ?? MATTERMOST_FAKE_DEFAULTS.teamId,
    team_domain: o.teamDomain ?? 'tollgate-test',
    post_id: o.postId,
    trigger_id: o.triggerId ?? triggerId(),
    type: 'button',
    data_source: '',
    context: o.context,
  };
}

/**
 * How a click can be tampered with. Mattermost signs nothing, so the only proof is the HMAC in
 * the context: `forged` keeps the fields and replaces the `sig`; `stale` (which has no meaning
 * for Mattermost, whose requests carry no timestamp) is a context whose `sig` belongs to other
 * fields, as when a captured context is replayed with another option or call swapped in.
 */
export function tamperedContext(
  context: Record<string, unknown>,
  how: 'forged' | 'stale' | 'nonce',
): Record<string, unknown> {
  if (how === 'forged') return { ...context, sig: 'f'.repeat(64) };
  if (how === 'nonce') return { ...context, nonce: otherNonce(context.nonce) };
  return { ...context, optionKey: `${String(context.optionKey)}x` };
}

/** 32 hex characters that differ from `nonce` in every position. */
export function otherNonce(nonce: unknown): string {
  const given = typeof nonce === 'string' && /^[0-9a-f]{32}$/.test(nonce) ? nonce : '0'.repeat(32);
  return [...given].map((c) => (c === 'a' ? 'b' : 'a')).join('');
}

export interface SlashCommandOptions {
  token: string;
  teamId: string;
  channelId: string;
  userId: string;
  userName?: string;
  command?: string;
  text: string;
  triggerId?: string;
  /** Set when the command was typed in a thread's reply box. */
  rootId?: string;
}

/** The form fields of a slash command request. */
export function slashCommandBody(o: SlashCommandOptions): URLSearchParams {
  const form = new URLSearchParams({
    channel_id: o.channelId,
    channel_name: 'town-square',
    command: o.command ?? '/ask',
    response_url: 'http://127.0.0.1:1/hooks/commands/unused',
    team_domain: 'tollgate-test',
    team_id: o.teamId,
    text: o.text,
    token: o.token,
    trigger_id: o.triggerId ?? triggerId(),
    user_id: o.userId,
    user_name: o.userName ?? o.userId,
  });
  if (o.rootId) form.set('root_id', o.rootId);
  return form;
}

export interface OutgoingWebhookOptions {
  token: string;
  teamId: string;
  channelId: string;
  userId: string;
  userName?: string;
  postId: string;
  text: string;
  triggerWord?: string;
  rootId?: string;
}

/** The form fields of an outgoing webhook request. */
export function outgoingWebhookBody(o: OutgoingWebhookOptions): URLSearchParams {
  const trigger = o.triggerWord ?? '@tollgate';
  const form = new URLSearchParams({
    token: o.token,
    team_id: o.teamId,
    team_domain: 'tollgate-test',
    channel_id: o.channelId,
    channel_name: 'town-square',
    timestamp: String(Date.now()),
    user_id: o.userId,
    user_name: o.userName ?? o.userId,
    post_id: o.postId,
    text: `${trigger} ${o.text}`,
    trigger_word: trigger,
    file_ids: '',
  });
  if (o.rootId) form.set('root_id', o.rootId);
  return form;
}

/** Like the server's trigger ids: opaque and unique per interaction. */
function triggerId(): string {
  return randomBytes(24).toString('base64url');
}
