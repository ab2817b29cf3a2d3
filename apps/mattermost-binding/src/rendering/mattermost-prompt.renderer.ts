import {
  breakMarkdownLinks,
  breakMentions,
  EDIT_ACTION,
  EDIT_BUTTON_LABEL,
  fitPromptText,
  type PromptTarget,
  type PromptView,
  promptStatusLine,
  type StatusMarkup,
} from '@tollgate/binding-core';
import type { Option, Person } from '@tollgate/protocol';
import { type ActionContext, signAction } from '../inbound/action-signature';

/**
 * A prompt as a Mattermost post: the message says what is asked and by whom; one legacy
 * attachment carries the status and, while the prompt can be answered, the buttons. Mattermost
 * strips every button's `integration` from the posts it returns, so nothing is read back and
 * patched: props are rebuilt whole from the view on every edit.
 */

/** model.PostMessageMaxRunesV2. */
export const MESSAGE_RUNE_LIMIT = 16_383;
const ATTACHMENT_TEXT_LIMIT = 4_000;
const BUTTON_NAME_LIMIT = 80;

/** Props keys a retry finds its own posts by. */
export const PROMPT_REF_PROP = 'tollgate_prompt_ref';
/**
 * The nonce the post's buttons carry, readable back: a retry that finds an earlier attempt's
 * post must journal the nonce that post really carries, or its buttons answer nothing (clients
 * never see action contexts, so the nonce is kept beside them). Not a secret: a context is
 * believed for its HMAC, which the nonce alone cannot make.
 */
export const POST_NONCE_PROP = 'tollgate_post_nonce';
export const OUTPUT_ID_PROP = 'tollgate_output_id';

const COLORS = {
  pending: '#1c58d9',
  refreshed: '#1c58d9',
  approved: '#2eb886',
  denied: '#d24b4e',
  abandoned: '#8d8d8d',
  expired: '#e0a800',
} as const;

export interface MattermostAction {
  readonly id: string;
  readonly type: 'button';
  readonly name: string;
  readonly style: 'primary' | 'danger' | 'default';
  readonly integration: {
    readonly url: string;
    readonly context: ActionContext;
  };
}

export interface MattermostAttachment {
  readonly fallback: string;
  readonly text: string;
  readonly color: string;
  readonly actions?: readonly MattermostAction[];
}

export interface MattermostPromptPost {
  readonly message: string;
  readonly props: {
    readonly attachments: readonly MattermostAttachment[];
    readonly [PROMPT_REF_PROP]: string;
    readonly [POST_NONCE_PROP]?: string;
  };
}

export interface MattermostRenderSettings {
  /** `<MATTERMOST_PUBLIC_URL>/mattermost/actions`. */
  readonly actionUrl: string;
  readonly actionSecret: string;
}

/** A live prompt without its post's nonce would carry buttons no click could ever answer. */
export class MissingPostNonce extends Error {
  override readonly name = 'MissingPostNonce';
}

export function renderMattermostPrompt(
  view: PromptView,
  target: Pick<PromptTarget, 'promptRef' | 'postNonce'>,
  settings: MattermostRenderSettings,
): MattermostPromptPost {
  const { request } = view;
  const agent = request.agent
    ? `\nAsked by sub-agent ${escape(request.agent.name)} (for call ${escape(request.agent.parentCallId)})`
    : '';
  const header = `${code(request.toolName)} wants approval${agent}\n`;
  const requested = `\nRequested by ${mention(request.requester)}`;
  // A4: escaping may grow the text; the arguments give way, never its last lines.
  const room = Math.max(MESSAGE_RUNE_LIMIT - runes(header) - runes(requested), 0);
  const message = truncateRunes(
    `${header}${fitPromptText(request.displayText, room, quote, runes)}${requested}`,
    MESSAGE_RUNE_LIMIT,
  );
  const status = promptStatusLine(view, MARKUP) ?? 'Choose an option below.';
  const live = view.kind === 'pending' || view.kind === 'refreshed';
  if (live && target.postNonce === undefined) {
    throw new MissingPostNonce(`prompt ${target.promptRef} has no post nonce to sign its buttons`);
  }
  const attachment: MattermostAttachment = {
    fallback: truncateRunes(`${request.toolName} wants approval — ${status}`, 300),
    text: truncateRunes(status, ATTACHMENT_TEXT_LIMIT),
    color: colorOf(view),
    ...(live ? { actions: actionsFor(request.options, request, target.postNonce!, settings) } : {}),
  };
  return {
    message,
    props: {
      attachments: [attachment],
      [PROMPT_REF_PROP]: target.promptRef,
      ...(target.postNonce === undefined ? {} : { [POST_NONCE_PROP]: target.postNonce }),
    },
  };
}

/** `approve_once` → `approveonce`: Mattermost routes only `[A-Za-z0-9]+` action ids. */
export function actionIdOf(optionKey: string): string {
  return optionKey.replace(/[^A-Za-z0-9]/g, '') || 'option';
}

function actionsFor(
  options: readonly Option[],
  request: { sessionId: string; callId: string; editable?: unknown },
  nonce: string,
  settings: MattermostRenderSettings,
): MattermostAction[] {
  const used = new Set<string>();
  // G2: "Edit & approve" is a button like the options, signed with the key `edit`; it sits
  // after "Approve once", which it refines.
  const keys: { key: string; label: string; style: Option['style'] }[] = options.map((o) => ({
    ...o,
  }));
  if (request.editable !== undefined) {
    keys.splice(options.findIndex((o) => o.key === 'approve_once') + 1, 0, {
      key: EDIT_ACTION,
      label: EDIT_BUTTON_LABEL,
      style: 'default',
    });
  }
  return keys.map((option, index) => {
    let id = actionIdOf(option.key);
    if (used.has(id)) id = `${id}${index}`;
    used.add(id);
    const fields = {
      sessionId: request.sessionId,
      callId: request.callId,
      optionKey: option.key,
      nonce,
    };
    return {
      id,
      type: 'button',
      name: truncateRunes(option.label, BUTTON_NAME_LIMIT),
      style: option.style,
      integration: {
        url: settings.actionUrl,
        context: { ...fields, sig: signAction(settings.actionSecret, fields) },
      },
    };
  });
}

function colorOf(view: PromptView): string {
  if (view.kind !== 'resolved') return COLORS[view.kind];
  const option = view.request.options.find((o) => o.key === view.optionKey);
  return option?.style === 'danger' ? COLORS.denied : COLORS.approved;
}

/**
 * `@username` when the person is known by a Mattermost username, else their name or id. The
 * names Mattermost reads as channel-wide mentions are never written after an `@`.
 */
export function mention(person: Person): string {
  const name = person.displayName;
  if (name && /^[a-z0-9._-]+$/i.test(name) && !CHANNEL_WIDE.has(name.toLowerCase())) {
    return `@${name}`;
  }
  return escape(name ?? person.id);
}

const CHANNEL_WIDE = new Set(['all', 'channel', 'here']);

function quote(text: string): string {
  return inert(text)
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

/** Markdown emphasis and link characters in names would change how the message reads. */
function escape(text: string): string {
  return inert(text.replace(/([\\*~`[\]])/g, '\\$1'));
}

/**
 * The server notifies for `@channel`, `@all`, `@here` and `@username` in the message and in
 * attachment text, and no post prop stops that (`mentionHighlightDisabled` only changes how
 * clients highlight). So the text itself is made inert; Markdown links too, so
 * `[bank.com](https://evil)` shows its real address.
 */
function inert(text: string): string {
  return breakMarkdownLinks(breakMentions(text));
}

/** A tool name as inline code, which shows it verbatim (underscores and all). */
function code(text: string): string {
  return `\`${inert(text.replace(/`/g, "'"))}\``;
}

/**
 * A reply or notice: its Markdown kept, its mentions and links made inert; the person Tollgate
 * addresses (a reminder's requester) goes first as a real `@username` mention.
 */
export function renderMattermostText(text: string, addressee?: Person): string {
  return addressee ? `${mention(addressee)} ${inert(text)}` : inert(text);
}

/** Cuts to `limit` runes (code points), as the server counts them, ending with an ellipsis. */
function runes(text: string): number {
  return [...text].length;
}

export function truncateRunes(text: string, limit: number): string {
  const runes = [...text];
  return runes.length <= limit ? text : `${runes.slice(0, limit - 1).join('')}…`;
}

const MARKUP: StatusMarkup = { bold: (text) => `**${text}**`, escape, mention };
