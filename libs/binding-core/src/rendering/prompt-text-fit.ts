/**
 * A4: a prompt's text (docs/protocol.md, 2026-12-01 (b) §5) ends with the lines that say who
 * asks, who may answer and the arguments hash; the session fits the text to each platform, but
 * a binding's escaping can still grow a hostile text past the platform's limit. Then the
 * arguments give way, never those last lines: they are what the approver checks.
 */

/** The line the session's prompt text always ends with. */
const HASH_LINE = /^Arguments hash: /;
/** How many lines end a prompt text at most ("Agent says", agent, approvers, hash). */
const FOOTER_LINES = 4;
const FOOTER_STARTS = [/^Agent says: /, /^Agent: /, /^Approvers: /, HASH_LINE];

/**
 * `render(text)` within `limit` characters: the whole text when it fits; otherwise the text
 * with its arguments cut ("… (N more characters)") and its footer whole; a text without that
 * footer (an older session's) is cut at its end, as before.
 */
export function fitPromptText(
  displayText: string,
  limit: number,
  render: (text: string) => string,
  /** How the platform counts (Mattermost counts runes); UTF-16 code units by default. */
  measure: (text: string) => number = (text) => text.length,
): string {
  const whole = render(displayText);
  if (measure(whole) <= limit) return whole;
  const lines = displayText.split('\n');
  const footerAt = footerStart(lines);
  const head = lines.slice(0, footerAt).join('\n');
  const footer = footerAt < lines.length ? `\n${lines.slice(footerAt).join('\n')}` : '';
  // Binary search on how much of the head to keep: rendering is not linear in the text.
  let low = 0;
  let high = head.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (measure(render(cutAt(head, mid) + footer)) <= limit) low = mid;
    else high = mid - 1;
  }
  // Even the footer alone may not fit a tiny room: the caller's own truncation then applies.
  return render(cutAt(head, low) + footer);
}

function footerStart(lines: readonly string[]): number {
  if (!HASH_LINE.test(lines.at(-1) ?? '')) return lines.length;
  let start = lines.length - 1;
  while (
    start > 0 &&
    lines.length - start < FOOTER_LINES &&
    FOOTER_STARTS.some((re) => re.test(lines[start - 1] ?? ''))
  ) {
    start -= 1;
  }
  return start;
}

function cutAt(text: string, kept: number): string {
  if (kept >= text.length) return text;
  let head = text.slice(0, kept);
  const last = head.charCodeAt(head.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1);
  return `${head}… (${text.length - head.length} more characters)`;
}
