import {
  breakMentions,
  EDIT_ACTION,
  EDIT_BUTTON_LABEL,
  fitPromptText,
  type PromptView,
  promptStatusLine,
  type StatusMarkup,
} from '@tollgate/binding-core';
import type { Button, KnownBlock } from '@slack/types';
import type { Option, Person } from '@tollgate/protocol';

/**
 * Block Kit for a prompt. Limits from Slack's block reference: section text ≤ 3000, button
 * text ≤ 75, action_id and block_id ≤ 255, button value ≤ 2000. The actions block exists only
 * while the prompt can be answered; every other state is rendered without it.
 */
const SECTION_LIMIT = 3_000;
const FALLBACK_LIMIT = 3_000;

/** Button action ids: `tollgate:<optionKey>`; the value is the prompt's opaque reference. */
export const ACTION_ID_PREFIX = 'tollgate:';

export interface SlackMessage {
  readonly text: string;
  readonly blocks: readonly KnownBlock[];
}

export function renderSlackPrompt(view: PromptView, promptRef: string): SlackMessage {
  const { request } = view;
  const agent = request.agent
    ? `\nAsked by sub-agent ${escape(request.agent.name)} (for call ${escape(request.agent.parentCallId)})`
    : '';
  const header = `*${escape(request.toolName)}* wants approval${agent}`;
  const requested = `\nRequested by ${mention(request.requester)}`;
  // A4: escaping may grow the text; the arguments give way, never its last lines.
  const room = Math.max(SECTION_LIMIT - header.length - 1 - requested.length, 0);
  const body = truncate(
    `${header}\n${fitPromptText(request.displayText, room, quote)}${requested}`,
    SECTION_LIMIT,
  );
  const blocks: KnownBlock[] = [
    { type: 'section', block_id: 'tollgate_request', text: { type: 'mrkdwn', text: body } },
  ];
  if (view.kind === 'pending' || view.kind === 'refreshed') {
    blocks.push({
      type: 'actions',
      // A new block_id per state, as Slack asks for updated messages.
      block_id: `tollgate_actions_${view.kind}`,
      elements: withEditButton(
        request.options.map((option) => button(option, promptRef)),
        request.editable !== undefined,
        promptRef,
      ),
    });
  }
  const status = promptStatusLine(view, MARKUP);
  if (status) {
    blocks.push({
      type: 'context',
      block_id: `tollgate_status_${view.kind}`,
      elements: [{ type: 'mrkdwn', text: status }],
    });
  }
  const fallback = `${escape(request.toolName)} wants approval${status ? ` — ${plain(status)}` : ''}`;
  return { text: truncate(fallback, FALLBACK_LIMIT), blocks };
}

function button(option: Option, promptRef: string): Button {
  return {
    type: 'button',
    action_id: `${ACTION_ID_PREFIX}${option.key}`,
    value: promptRef,
    text: { type: 'plain_text', text: truncate(option.label, 75), emoji: true },
    // Slack knows primary and danger; the default style is the absence of `style`.
    ...(option.style === 'default' ? {} : { style: option.style }),
  };
}

/** G2: "Edit & approve" opens the modal; it sits after "Approve once", which it refines. */
function withEditButton(buttons: Button[], editable: boolean, promptRef: string): Button[] {
  if (!editable) return buttons;
  const edit: Button = {
    type: 'button',
    action_id: `${ACTION_ID_PREFIX}${EDIT_ACTION}`,
    value: promptRef,
    text: { type: 'plain_text', text: EDIT_BUTTON_LABEL, emoji: true },
  };
  const at = buttons.findIndex((b) => b.action_id === `${ACTION_ID_PREFIX}approve_once`) + 1;
  return [...buttons.slice(0, at), edit, ...buttons.slice(at)];
}

function mention(person: Person): string {
  return /^[UW][A-Z0-9]+$/.test(person.id)
    ? `<@${person.id}>`
    : escape(person.displayName ?? person.id);
}

function quote(text: string): string {
  return escape(text)
    .split('\n')
    .map((line) => `>${line}`)
    .join('\n');
}

/**
 * Slack's mrkdwn treats &, < and > as control characters: escaped, no `<!channel>`,
 * `<!here>`, `<!everyone>`, `<!subteam^…>`, `<@U…>` or `<https://evil|bank.com>` survives.
 * Plain `@channel` pings only with `link_names`, which Tollgate never sets; the mentions are
 * broken anyway, so turning it on some day does not arm them.
 */
function escape(text: string): string {
  return breakMentions(text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
}

/**
 * A reply or notice (model- or session-written) as inert mrkdwn, for a plain post; the person
 * Tollgate addresses (a reminder's requester) goes first as a real `<@U…>` mention.
 */
export function renderSlackText(text: string, addressee?: Person): string {
  return addressee ? `${mention(addressee)} ${escape(text)}` : escape(text);
}

function plain(mrkdwn: string): string {
  return mrkdwn.replace(/[*_~]|:[a-z_]+: /g, '');
}

function truncate(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

const MARKUP: StatusMarkup = { bold: (text) => `*${text}*`, escape, mention };
