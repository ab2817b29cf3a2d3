import type { Platform } from '@tollgate/protocol';
import { personById } from '../platforms/sandbox-people';

/**
 * Shortcodes as symbols every system font has (a headless Chromium without an emoji font
 * would show empty boxes for the pictographs).
 */
const EMOJI: Record<string, string> = {
  arrows_counterclockwise: '↻',
  no_entry_sign: '⊘',
  no_entry: '⊘',
  hourglass: '⌛',
  white_check_mark: '✔',
  heavy_check_mark: '✔',
  x: '✖',
  warning: '⚠',
  stop_sign: '⊘',
  information_source: 'ⓘ',
};

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * Chat markup as the platform shows it, enough for Tollgate's messages: bold, italics, code,
 * quotes, mentions of the sandbox's people, emoji shortcodes and links. Everything is escaped
 * first; only the tags made here reach the page.
 */
export function renderMarkup(text: string, platform: Platform): string {
  const bold = platform === 'slack' ? /\*([^*\n]+)\*/g : /\*\*([^*\n]+)\*\*/g;
  let html = escapeHtml(text)
    .replace(/```([\s\S]*?)```/g, (_m, code: string) => `<pre>${code}</pre>`)
    .replace(/`([^`\n]+)`/g, '<code>$1</code>')
    .replace(bold, '<b>$1</b>')
    .replace(/(^|[\s(])_([^_\n]+)_(?=[\s).,!?]|$)/g, '$1<i>$2</i>')
    .replace(/&lt;@([A-Za-z0-9]+)&gt;/g, (_m, id: string) => mention(platform, id))
    .replace(/&lt;(https?:[^|&]+)\|([^&]+)&gt;/g, '<a href="$1" rel="noreferrer">$2</a>')
    .replace(/:([a-z_]+):/g, (m, name: string) => EMOJI[name] ?? m);
  if (platform === 'mattermost') {
    html = html.replace(
      /(^|\s)@(alice|bob|tollgate)\b/g,
      (_m, lead: string, name: string) => `${lead}<span class="mention">@${name}</span>`,
    );
  }
  return html
    .split('\n')
    .map((line) => (line.startsWith('&gt;') ? `<q>${line.slice(4).trimStart()}</q>` : line))
    .join('<br>');
}

function mention(platform: Platform, id: string): string {
  const person = personById(platform, id);
  const name = person?.name ?? (/BOT|^1100/.test(id) ? 'tollgate' : id);
  return `<span class="mention">@${escapeHtml(name)}</span>`;
}
