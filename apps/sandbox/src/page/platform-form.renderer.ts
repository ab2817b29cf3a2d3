import type { Platform } from '@tollgate/protocol';
import type { PanelForm } from '../platforms/sandbox-platform.port';
import { escapeHtml } from './chat-markup.renderer';

/** What each platform calls the form a binding opens, shown over the panel as it would be. */
const FORM_KINDS: Readonly<Record<Platform, string>> = {
  slack: 'modal',
  discord: 'modal',
  mattermost: 'interactive dialog',
};

/**
 * G2: the form the binding opened for the viewer (Slack `views.open`, Discord's modal,
 * Mattermost's dialog), prefilled as the binding sent it, each field's hint under it. The page's
 * script submits it to the sandbox, which posts it to the binding as the platform does.
 */
export function renderPlatformForm(platform: Platform, form: PanelForm): string {
  const fields = form.fields
    .map((field) => {
      const name = escapeHtml(field.name);
      const input = field.multiline
        ? `<textarea name="${name}" rows="3">${escapeHtml(field.value)}</textarea>`
        : `<input type="text" name="${name}" value="${escapeHtml(field.value)}">`;
      const hint = field.hint ? `<small class="hint">${escapeHtml(field.hint)}</small>` : '';
      return `<label class="field"><span>${escapeHtml(field.label)}</span>${input}${hint}</label>`;
    })
    .join('');
  const error = form.error
    ? `<p class="form-error" role="alert">${escapeHtml(form.error)}</p>`
    : '';
  return `<form class="platform-form" data-form-id="${escapeHtml(form.id)}" role="dialog" aria-label="${escapeHtml(form.title)}" title="the binding's ${FORM_KINDS[platform]}">
  <h3>${escapeHtml(form.title)} <small>${FORM_KINDS[platform]}</small></h3>
  ${fields}
  ${error}
  <div class="form-buttons"><button type="button" class="form-cancel">Cancel</button><button type="submit" class="form-submit">${escapeHtml(form.submitLabel)}</button></div>
</form>`;
}
