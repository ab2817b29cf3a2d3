import {
  describeConstraint,
  editFormText,
  parseArgumentConstraint,
  type ToolInteractionRequest,
} from '@tollgate/protocol';

/**
 * G2: the "Edit & approve" form every binding opens on its platform (Slack modal, Discord modal,
 * Mattermost interactive dialog), described once. A button carries the prompt's reference under
 * this key instead of an option's, so no platform's button may name it as an option.
 */
export const EDIT_ACTION = 'edit';
export const EDIT_BUTTON_LABEL = 'Edit & approve';
export const EDIT_FORM_TITLE = 'Edit & approve';
export const EDIT_SUBMIT_LABEL = 'Approve';

export interface EditFormField {
  /** The argument's name, which the submission names again. */
  readonly name: string;
  readonly label: string;
  /** The current value as the form shows it (docs/protocol.md §10). */
  readonly value: string;
  /** The constraint in words: "under /srv/a". */
  readonly hint: string;
  readonly multiline: boolean;
}

export interface EditForm {
  readonly promptRef: string;
  readonly toolName: string;
  readonly fields: readonly EditFormField[];
}

/** The form for a prompt, or undefined when it offers no edit. Pure. */
export function editFormOf(
  request: ToolInteractionRequest,
  promptRef: string,
): EditForm | undefined {
  if (!request.editable || request.editable.length === 0) return undefined;
  return {
    promptRef,
    toolName: request.toolName,
    fields: request.editable.map((arg) => {
      const value = editFormText(arg.value);
      const parsed = parseArgumentConstraint(arg.constraint);
      return {
        name: arg.name,
        label: arg.name,
        value,
        hint: parsed.ok ? `Must be ${describeConstraint(parsed.constraint)}` : '',
        multiline: Array.isArray(arg.value) || value.includes('\n') || value.length > 150,
      };
    }),
  };
}
