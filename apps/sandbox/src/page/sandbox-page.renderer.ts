import type { Platform } from '@tollgate/protocol';
import { PEOPLE, type PersonKey } from '../platforms/sandbox-people';
import type { PanelMessage, PanelPart, PanelView } from '../platforms/sandbox-platform.port';
import type { ServiceStatus } from '../services/service-supervisor';
import { escapeHtml, renderMarkup } from './chat-markup.renderer';
import { renderPlatformForm } from './platform-form.renderer';
import { SANDBOX_SCRIPT } from './sandbox-page.script';
import { SANDBOX_STYLES } from './sandbox-page.styles';

export const PLATFORM_TITLES: Readonly<Record<Platform, string>> = {
  slack: 'Slack',
  discord: 'Discord',
  mattermost: 'Mattermost',
};

/** The scripted model's grammar (`!<tool> <JSON object>`), one click away. */
export const EXAMPLE_CHIPS: readonly { label: string; text: string }[] = [
  {
    label: 'write a note (asks first)',
    text: '!fs__write_file {"path": "note.txt", "content": "buy milk"}',
  },
  { label: 'list the workspace (runs at once)', text: '!fs__list_directory {"path": "."}' },
  { label: 'echo (runs at once)', text: '!echo {"text": "hello"}' },
  {
    label: 'two notes',
    text: '!fs__write_file {"path": "one.txt", "content": "one"}\n!fs__write_file {"path": "two.txt", "content": "two"}',
  },
  { label: 'just talk', text: 'never mind' },
];

/** G2: the sandbox's policy lets an approver narrow a new folder's path ("Edit & approve"). */
export function editableChip(workspaceDir: string): { label: string; text: string } {
  return {
    label: 'make a folder (Edit & approve)',
    text: `!fs__create_directory {"path": ${JSON.stringify(`${workspaceDir}/drafts`)}}`,
  };
}

/**
 * The sandbox page, rendered on the server: every panel and the service bar are HTML made
 * here, and the page's script only swaps in fresh fragments when the server says something
 * changed. One renderer, no client framework and no build step for the page.
 */
export function renderPage(
  panels: readonly PanelView[],
  services: readonly ServiceStatus[],
  viewer: PersonKey,
  files: readonly string[] = [],
  workspaceDir?: string,
): string {
  const chips =
    workspaceDir === undefined ? EXAMPLE_CHIPS : [...EXAMPLE_CHIPS, editableChip(workspaceDir)];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tollgate sandbox</title>
<style>${SANDBOX_STYLES}</style>
</head>
<body>
<header class="top">
  <div class="brand"><b>Tollgate</b> sandbox <span class="tagline">approval prompts that stay true, on three platforms at once</span></div>
  <div id="services" class="services">${renderServices(services, files)}</div>
</header>
<main class="panels">
${panels.map((panel) => renderPanel(panel, viewer, chips)).join('\n')}
</main>
<script>${SANDBOX_SCRIPT}</script>
</body>
</html>`;
}

function renderPanel(
  panel: PanelView,
  viewer: PersonKey,
  examples: readonly { label: string; text: string }[],
): string {
  const title = PLATFORM_TITLES[panel.platform];
  const people = Object.values(PEOPLE)
    .map((p) => `<option value="${p.key}"${p.key === viewer ? ' selected' : ''}>${p.name}</option>`)
    .join('');
  const chips = examples
    .map(
      (chip) =>
        `<button type="button" class="chip" data-text="${escapeHtml(chip.text)}" title="${escapeHtml(chip.text)}">${escapeHtml(chip.label)}</button>`,
    )
    .join('');
  return `<section class="panel ${panel.platform}" data-platform="${panel.platform}">
  <h2>${title} <small>${panel.real ? 'real platform' : 'local stand-in'}</small></h2>
  <label class="person">You are <select name="person" aria-label="${title}: you are">${people}</select></label>
  <div class="conversation" aria-live="polite">${renderConversation(panel)}</div>
  <div class="chips">${chips}</div>
  <form class="composer">
    <textarea name="text" rows="2" aria-label="${title} message" placeholder="Message Tollgate as this person (Ctrl+Enter sends)"></textarea>
    <button type="submit">Send</button>
  </form>
  <div class="last-request" role="status"></div>
  ${panel.real ? '' : renderAgent(title)}
</section>`;
}

/**
 * An outside agent (Claude Code, through its `http` PermissionRequest hook) asks to run a
 * command: its prompt appears in this panel, and what Claude Code is told shows once decided.
 */
function renderAgent(title: string): string {
  return `<div class="agent-row">
    <button type="button" class="agent" title="POST /v1/hooks/claude-code, as Claude Code's http hook does">agent: Claude Code asks to run <code>npm publish</code></button>
    <pre class="agent-answer" role="status" aria-label="${title}: what the agent was told"></pre>
  </div>`;
}

export function renderConversation(panel: PanelView): string {
  if (panel.real) {
    return `<p class="empty">The binding talks to the real ${PLATFORM_TITLES[panel.platform]}: use it there.</p>`;
  }
  const form = panel.form ? renderPlatformForm(panel.platform, panel.form) : '';
  if (panel.messages.length === 0) {
    return `<p class="empty">No messages yet: pick a chip below, or write to Tollgate.</p>${form}`;
  }
  return panel.messages.map((message) => renderMessage(panel.platform, message)).join('\n') + form;
}

function renderMessage(platform: Platform, message: PanelMessage): string {
  const classes = [
    'message',
    message.fromBot ? 'bot' : 'person',
    message.privateTo ? 'private' : '',
  ]
    .filter(Boolean)
    .join(' ');
  const edited =
    message.edits > 0
      ? `<span class="edited" title="edited ${message.edits}×">(edited)</span>`
      : '';
  const privately = message.privateTo ? '<span class="only-you">Only visible to you</span>' : '';
  const buttons =
    message.buttons.length === 0
      ? ''
      : `<div class="buttons">${message.buttons
          .map(
            (b) =>
              `<button type="button" class="action ${b.style}" data-ref="${escapeHtml(b.ref)}"${b.disabled ? ' disabled' : ''}>${escapeHtml(b.label)}</button>`,
          )
          .join('')}</div>`;
  return `<article class="${classes}" data-message-id="${escapeHtml(message.id)}" data-edits="${message.edits}">
  <div class="meta"><b>${escapeHtml(message.author)}</b>${message.fromBot ? ' <span class="app">APP</span>' : ''} <time>${new Date(message.at).toISOString().slice(11, 19)}</time> ${edited} ${privately}</div>
  ${message.parts.map((part) => renderPart(platform, part)).join('\n  ')}
  ${buttons}
</article>`;
}

function renderPart(platform: Platform, part: PanelPart): string {
  switch (part.kind) {
    case 'text':
      return `<div class="text">${renderMarkup(part.text, platform)}</div>`;
    case 'context':
      return `<div class="context">${renderMarkup(part.text, platform)}</div>`;
    case 'attachment':
      return `<div class="attachment" style="border-left-color:${safeColor(part.color)}">${renderMarkup(part.text, platform)}</div>`;
  }
}

function safeColor(color: string | undefined): string {
  return color && /^#[0-9a-fA-F]{3,8}$/.test(color) ? color : '#8e8ea0';
}

export function renderServices(
  services: readonly ServiceStatus[],
  files: readonly string[] = [],
): string {
  const listed = files.map((f) => `<span class="file">${escapeHtml(f)}</span>`).join(' ');
  const workspace = `<div class="workspace" title="the files the agent's fs__ tools see"><b>workspace</b> ${listed || '<span class="empty">empty</span>'}</div>`;
  return (
    workspace +
    services
      .map(
        (s) => `<div class="service ${s.state.replace(' ', '-')}" data-service="${s.name}">
  <span class="dot" aria-hidden="true"></span><b>${s.name}</b>
  <span class="state">${s.state}</span><span class="port">:${s.port}</span>
  <button type="button" data-op="restart" data-name="${s.name}" title="SIGTERM, then start again">restart</button>
  <button type="button" data-op="kill" data-name="${s.name}" title="kill -9: no drain, no goodbye"${s.pid === undefined ? ' disabled' : ''}>kill -9</button>
</div>`,
      )
      .join('')
  );
}
