import {
  breakMarkdownLinks,
  EDIT_ACTION,
  EDIT_BUTTON_LABEL,
  breakMentions,
  fitPromptText,
  type PromptView,
  promptStatusLine,
  type StatusMarkup,
  ZERO_WIDTH_SPACE,
} from '@tollgate/binding-core';
import type { Option, Person } from '@tollgate/protocol';

/**
 * A prompt as a Discord message: content (≤ 2000 characters) naming the tool, the request and
 * the requester, and one action row of buttons (≤ 5; label ≤ 80; custom_id 1–100, unique per
 * message) while the prompt can be answered. Every other state is rendered with
 * `components: []`, which removes the buttons on an edit.
 */
export const CONTENT_LIMIT = 2_000;
const LABEL_LIMIT = 80;
const CUSTOM_ID_LIMIT = 100;
const BUTTONS_PER_ROW = 5;

/** Button custom ids: `tg:<optionKey>:<promptRef>`; the prompt ref never holds a colon. */
export const CUSTOM_ID_PREFIX = 'tg:';

export const ButtonStyle = { primary: 1, secondary: 2, danger: 4 } as const;

export interface DiscordButton {
  readonly type: 2;
  readonly style: number;
  readonly label: string;
  readonly custom_id: string;
}

export interface DiscordActionRow {
  readonly type: 1;
  readonly components: readonly DiscordButton[];
}

export interface DiscordMessage {
  readonly content: string;
  readonly components: readonly DiscordActionRow[];
  /** Nobody is pinged by a prompt: the requester and approver are shown, not notified. */
  readonly allowed_mentions: { readonly parse: readonly [] };
}

export function renderDiscordPrompt(view: PromptView, promptRef: string): DiscordMessage {
  const { request } = view;
  const head = [
    `**${escape(request.toolName)}** wants approval (call \`${inlineCode(request.callId)}\`)`,
    ...(request.agent
      ? [
          `Asked by sub-agent ${escape(request.agent.name)} (for call ${escape(request.agent.parentCallId)})`,
        ]
      : []),
  ].join('\n');
  const requested = `Requested by ${mention(request.requester)}`;
  const status = promptStatusLine(view, MARKUP);
  // The state line must survive truncation: the request text gives way first, and within it
  // the arguments, never its last lines (A4).
  const tail = status ? `\n${status}` : '';
  const room = Math.max(CONTENT_LIMIT - tail.length - head.length - requested.length - 2, 0);
  const lines = [head, fitPromptText(request.displayText, room, quote), requested];
  const content = truncate(lines.join('\n'), CONTENT_LIMIT - tail.length) + tail;
  const live = view.kind === 'pending' || view.kind === 'refreshed';
  return {
    content: truncate(content, CONTENT_LIMIT),
    components: live ? rows(request.options, promptRef, request.editable !== undefined) : [],
    allowed_mentions: { parse: [] },
  };
}

function rows(
  options: readonly Option[],
  promptRef: string,
  editable: boolean,
): DiscordActionRow[] {
  const buttons = options.map((option) => button(option, promptRef));
  if (editable) {
    // G2: "Edit & approve" opens the modal; it sits after "Approve once", which it refines.
    const at = options.findIndex((o) => o.key === 'approve_once') + 1;
    buttons.splice(at, 0, {
      type: 2,
      style: ButtonStyle.secondary,
      label: EDIT_BUTTON_LABEL,
      custom_id: `${CUSTOM_ID_PREFIX}${EDIT_ACTION}:${promptRef}`,
    });
  }
  const result: DiscordActionRow[] = [];
  for (let i = 0; i < buttons.length; i += BUTTONS_PER_ROW) {
    result.push({ type: 1, components: buttons.slice(i, i + BUTTONS_PER_ROW) });
  }
  return result;
}

function button(option: Option, promptRef: string): DiscordButton {
  const customId = `${CUSTOM_ID_PREFIX}${option.key}:${promptRef}`;
  if (customId.length > CUSTOM_ID_LIMIT) {
    throw new Error(`option key "${option.key}" makes a custom_id over ${CUSTOM_ID_LIMIT}`);
  }
  return {
    type: 2,
    style:
      option.style === 'primary'
        ? ButtonStyle.primary
        : option.style === 'danger'
          ? ButtonStyle.danger
          : ButtonStyle.secondary,
    label: truncate(option.label, LABEL_LIMIT),
    custom_id: customId,
  };
}

/** Reads a custom id back: undefined when it is not a Tollgate button. */
export function parseCustomId(
  customId: string,
): { optionKey: string; promptRef: string } | undefined {
  if (!customId.startsWith(CUSTOM_ID_PREFIX)) return undefined;
  const rest = customId.slice(CUSTOM_ID_PREFIX.length);
  const at = rest.lastIndexOf(':');
  if (at <= 0 || at === rest.length - 1) return undefined;
  return { optionKey: rest.slice(0, at), promptRef: rest.slice(at + 1) };
}

/** A Discord user id is a snowflake; anyone else is shown by name. */
export function mention(person: Person): string {
  return /^\d{1,20}$/.test(person.id)
    ? `<@${person.id}>`
    : `**${escape(person.displayName ?? person.id)}** (${escape(person.id)})`;
}

function quote(text: string): string {
  return escape(text)
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

/**
 * Bold, strike, spoiler and code markers in the request are shown as written, and no mention
 * or masked link can be smuggled in. Underscores stay: tool names are full of them.
 */
function escape(text: string): string {
  return inert(text.replace(/([\\*~`|])/g, '\\$1'));
}

/**
 * `allowed_mentions: { parse: [] }` already keeps every post from pinging; the text is made
 * inert as well, so `@everyone`, `<@&role>` or `<@user>` does not even look like a mention,
 * and `[bank.com](https://evil)` shows its real address. `<` starts Discord's own mention,
 * channel and emoji syntax.
 */
function inert(text: string): string {
  return breakMarkdownLinks(breakMentions(text)).replace(/</g, `<${ZERO_WIDTH_SPACE}`);
}

/** A reply or notice: its Markdown kept, its mentions and masked links made inert. */
export function renderDiscordText(text: string): string {
  return inert(text);
}

function inlineCode(text: string): string {
  return text.replace(/`/g, "'");
}

function truncate(text: string, limit: number): string {
  if (limit <= 0) return '';
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

const MARKUP: StatusMarkup = { bold: (text) => `**${text}**`, escape, mention };
