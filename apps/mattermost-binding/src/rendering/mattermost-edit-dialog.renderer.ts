import { EDIT_FORM_TITLE, EDIT_SUBMIT_LABEL, type EditForm } from '@tollgate/binding-core';
import type { ActionContext } from '../inbound/action-signature';

/**
 * G2: the "Edit & approve" interactive dialog. Limits from the server's OpenDialogRequest
 * checks: title ≤ 24, element display_name ≤ 24, help_text ≤ 150; a `text` element holds at
 * most 150 characters, a `textarea` 3,000. The dialog's `state` is the edit button's own signed
 * context: Mattermost signs nothing it posts back, so the submission is believed for that HMAC,
 * as a click is.
 */
export const EDIT_ELEMENT_PREFIX = 'arg';
const TEXT_LIMIT = 150;
const TEXTAREA_LIMIT = 3_000;

export interface MattermostDialog {
  readonly callback_id: string;
  readonly title: string;
  readonly submit_label: string;
  readonly state: string;
  readonly elements: readonly Record<string, unknown>[];
}

export function renderMattermostEditDialog(
  form: EditForm,
  context: ActionContext,
  callbackId: string,
): MattermostDialog {
  return {
    callback_id: callbackId,
    title: cut(EDIT_FORM_TITLE, 24),
    submit_label: EDIT_SUBMIT_LABEL,
    state: JSON.stringify(context),
    elements: form.fields.map((field, index) => {
      const area = field.multiline || field.value.length > TEXT_LIMIT;
      const limit = area ? TEXTAREA_LIMIT : TEXT_LIMIT;
      return {
        display_name: cut(field.label, 24),
        name: `${EDIT_ELEMENT_PREFIX}${index}`,
        type: area ? 'textarea' : 'text',
        optional: true,
        max_length: limit,
        // A value the dialog cannot hold is left empty rather than cut: a cut path looks valid.
        ...(field.value !== '' && field.value.length <= limit ? { default: field.value } : {}),
        ...(field.hint ? { help_text: cut(field.hint, 150) } : {}),
      };
    }),
  };
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
