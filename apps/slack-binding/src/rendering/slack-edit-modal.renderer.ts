import { EDIT_FORM_TITLE, EDIT_SUBMIT_LABEL, type EditForm } from '@tollgate/binding-core';
import type { ModalView } from '@slack/types';

/**
 * G2: the "Edit & approve" modal (`views.open`). Limits from Slack's view reference: title and
 * submit ≤ 24 characters, input label ≤ 2,000, hint ≤ 2,000, a plain-text input's value
 * ≤ 3,000, `private_metadata` ≤ 3,000, block ids ≤ 255. Plain text only: nothing here is markup.
 */
export const EDIT_CALLBACK_ID = 'tollgate_edit';
/** Each field's block id: its index, so an argument's name never has to fit a block id. */
export const EDIT_BLOCK_PREFIX = 'tollgate_arg_';
export const EDIT_INPUT_ACTION = 'value';
const INPUT_LIMIT = 3_000;

/** What the submission must find again; Slack returns it signed with the payload. */
export interface EditModalMetadata {
  /** The prompt's opaque reference. */
  readonly ref: string;
  /** Where the prompt is, so a notice can be placed next to it. */
  readonly channel: string;
  readonly ts: string;
  readonly thread?: string;
  /** The arguments in block order. */
  readonly names: readonly string[];
}

export function renderSlackEditModal(form: EditForm, metadata: EditModalMetadata): ModalView {
  return {
    type: 'modal',
    callback_id: EDIT_CALLBACK_ID,
    title: { type: 'plain_text', text: EDIT_FORM_TITLE },
    submit: { type: 'plain_text', text: EDIT_SUBMIT_LABEL },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: JSON.stringify(metadata),
    blocks: [
      {
        type: 'section',
        block_id: 'tollgate_edit_tool',
        text: {
          type: 'plain_text',
          text: cut(`Run ${form.toolName} with these arguments:`, 3_000),
        },
      },
      ...form.fields.map((field, index) => ({
        type: 'input' as const,
        block_id: `${EDIT_BLOCK_PREFIX}${index}`,
        label: { type: 'plain_text' as const, text: cut(field.label, 2_000) },
        ...(field.hint
          ? { hint: { type: 'plain_text' as const, text: cut(field.hint, 2_000) } }
          : {}),
        element: {
          type: 'plain_text_input' as const,
          action_id: EDIT_INPUT_ACTION,
          multiline: field.multiline,
          max_length: INPUT_LIMIT,
          // A value Slack cannot hold is left empty rather than cut: a cut path would look valid.
          ...(field.value.length <= INPUT_LIMIT && field.value !== ''
            ? { initial_value: field.value }
            : {}),
        },
      })),
    ],
  };
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
