import { canonicalize } from 'json-canonicalize';
import { type ApproverGroup, LIMITS, type Person, type Platform } from '@tollgate/protocol';

/**
 * What the approver reads (docs/protocol.md, 2026-12-01 (b) §5): the prompt is rendered from the
 * tool and the arguments that will run, never from an agent's words alone. Contract: the text
 * holds the tool name and every short top-level argument value verbatim.
 *
 *   Tool: <name>
 *   Arguments:
 *   • <key>: <value>            keys sorted, strings as written, other values as canonical JSON
 *   Agent says: <summary>       only when the agent gave one, labelled as its words
 *   Agent: <name> · session <id> · on behalf of <person>
 *   Approvers: <persons>
 *   Arguments hash: sha256:<first 12 hex>
 *
 * Text only, no markup: each binding escapes it for its platform, so a value is shown, never
 * interpreted. The last four lines (three without a summary) are always whole: what is cut
 * to fit is the arguments, each value first, then the block.
 */

export interface PromptTextInput {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly argumentsHash: string;
  /** The agent's own words; shown only as "Agent says:". */
  readonly summary?: string;
  readonly agent: {
    readonly name: string;
    readonly session: string;
    readonly onBehalfOf?: Person;
  };
  /** Who may answer; `any member` for an automation prompt, which anyone there may answer. */
  readonly approvers: readonly Person[] | 'any member';
  /** G1: platform groups whose members may approve too, shown after the persons. */
  readonly approverGroups?: readonly ApproverGroup[];
  /** Characters the whole text may take. */
  readonly maxChars: number;
}

/** A value longer than this is cut even when the block has room: a prompt is read, not scrolled. */
export const VALUE_LIMIT = 1_000;
const SUMMARY_LIMIT = 500;
const NAME_LIMIT = 120;
/** Below this the arguments block is not worth showing cut further; the footer still fits. */
const MIN_BLOCK = 80;

/**
 * Characters of `displayText` each platform's prompt can show once the binding has added its
 * header, requester and status line and escaped the text for its markup (Slack's section ≤ 3000,
 * Discord's message ≤ 2000, Mattermost's post ≤ 16 383). Escaping can still grow a hostile
 * text past them; the binding then cuts the arguments, never the last lines.
 */
export const PROMPT_TEXT_BUDGET: Readonly<Record<Platform, number>> = {
  slack: 2_400,
  discord: 1_500,
  mattermost: 8_000,
};

export function renderPromptText(input: PromptTextInput): string {
  const footer = footerLines(input);
  const head = `Tool: ${input.tool}`;
  const keys = Object.keys(input.arguments).sort(compareCodeUnits);
  const fixed = [head, 'Arguments:', ...footer].join('\n').length + 1;
  const room = Math.min(input.maxChars, LIMITS.displayText) - fixed;
  const block = argumentsBlock(input.arguments, keys, Math.max(room, MIN_BLOCK));
  return [head, 'Arguments:', block, ...footer].join('\n');
}

function argumentsBlock(
  args: Readonly<Record<string, unknown>>,
  keys: readonly string[],
  room: number,
): string {
  if (keys.length === 0) return '(none)';
  const lines = keys.map((key) => ({ key, value: valueText(args[key]) }));
  // Shrink the longest values first, so short ones (the ones a person checks) stay whole.
  let limit = VALUE_LIMIT;
  let text = render(lines, limit);
  while (text.length > room && limit > 40) {
    limit = Math.floor(limit * 0.7);
    text = render(lines, limit);
  }
  return text.length <= room ? text : cut(text, room);
}

function render(lines: readonly { key: string; value: string }[], limit: number): string {
  return lines.map(({ key, value }) => `• ${cut(key, 200)}: ${cut(value, limit)}`).join('\n');
}

/** Strings as written (verbatim); anything else as its RFC 8785 JSON, keys sorted. */
function valueText(value: unknown): string {
  return typeof value === 'string' ? value : canonicalize(value);
}

/** `text` within `limit` characters, saying how much was left out. */
export function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  // The marker's own length counts, so the result keeps to `limit` whatever N's digits.
  let kept = Math.max(limit - 30, 0);
  for (;;) {
    const marker = `… (${text.length - kept} more characters)`;
    if (kept + marker.length <= limit || kept === 0) {
      return `${withoutHalfPair(text.slice(0, kept))}${marker}`;
    }
    kept -= 1;
  }
}

function footerLines(input: PromptTextInput): string[] {
  const { agent } = input;
  const summary =
    input.summary === undefined || input.summary.trim() === ''
      ? []
      : [`Agent says: ${cut(oneLine(input.summary), SUMMARY_LIMIT)}`];
  const behalf = agent.onBehalfOf ? ` · on behalf of ${person(agent.onBehalfOf)}` : '';
  const groups = (input.approverGroups ?? []).map(
    (g) =>
      `members of ${cut(oneLine(g.name ?? g.id), NAME_LIMIT)} (group ${cut(oneLine(g.id), 200)})`,
  );
  const approvers =
    groups.length > 0
      ? [...(input.approvers === 'any member' ? [] : input.approvers.map(person)), ...groups].join(
          ', ',
        )
      : input.approvers === 'any member'
        ? 'any member of this conversation'
        : input.approvers.map(person).join(', ');
  return [
    ...summary,
    `Agent: ${cut(oneLine(agent.name), NAME_LIMIT)} · session ${cut(oneLine(agent.session), 200)}${behalf}`,
    `Approvers: ${approvers}`,
    `Arguments hash: ${shortHash(input.argumentsHash)}`,
  ];
}

/** `sha256:` and the first 12 hex: enough to compare by eye with what the agent logged. */
export function shortHash(argumentsHash: string): string {
  return argumentsHash.startsWith('sha256:') ? argumentsHash.slice(0, 19) : argumentsHash;
}

function person(p: Person): string {
  const name = p.displayName === undefined ? '' : oneLine(p.displayName).trim();
  return name === '' || name === p.id
    ? cut(oneLine(p.id), NAME_LIMIT)
    : `${cut(name, NAME_LIMIT)} (${cut(oneLine(p.id), NAME_LIMIT)})`;
}

/** Words that would otherwise start lines of their own, and pose as the lines after them. */
function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ');
}

function withoutHalfPair(text: string): string {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
}

/** RFC 8785 sorts keys by UTF-16 code units, as JavaScript compares strings. */
function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
