import { EDIT_FORM_TITLE, type EditForm } from '@tollgate/binding-core';

/**
 * G2: the "Edit & approve" modal, sent as the click's first response (type 9, MODAL). Limits
 * from Discord's reference: title ≤ 45, custom_id ≤ 100, 1–5 action rows each holding one
 * text input (type 4): label ≤ 45, value ≤ 4,000, placeholder ≤ 100; style 1 short, 2 paragraph.
 */
export const MODAL_RESPONSE = 9;
/** The modal's custom id: `tge:<promptRef>`; each input's: `tga:<index>`. */
export const EDIT_MODAL_PREFIX = 'tge:';
export const EDIT_INPUT_PREFIX = 'tga:';
const VALUE_LIMIT = 4_000;

export interface DiscordTextInput {
  readonly type: 4;
  readonly custom_id: string;
  readonly label: string;
  readonly style: 1 | 2;
  readonly value?: string;
  readonly placeholder?: string;
  readonly required: boolean;
  readonly max_length: number;
}

export interface DiscordModal {
  readonly custom_id: string;
  readonly title: string;
  readonly components: readonly {
    readonly type: 1;
    readonly components: readonly [DiscordTextInput];
  }[];
}

export function renderDiscordEditModal(form: EditForm): DiscordModal {
  return {
    custom_id: `${EDIT_MODAL_PREFIX}${form.promptRef}`,
    title: cut(EDIT_FORM_TITLE, 45),
    components: form.fields.map((field, index) => ({
      type: 1 as const,
      components: [
        {
          type: 4 as const,
          custom_id: `${EDIT_INPUT_PREFIX}${index}`,
          label: cut(field.label, 45),
          style: field.multiline ? 2 : 1,
          // A value Discord cannot hold is left empty rather than cut: a cut path looks valid.
          ...(field.value !== '' && field.value.length <= VALUE_LIMIT
            ? { value: field.value }
            : {}),
          ...(field.hint ? { placeholder: cut(field.hint, 100) } : {}),
          required: false,
          max_length: VALUE_LIMIT,
        },
      ] as const,
    })),
  };
}

/** The prompt a modal's submission is for; undefined when the modal is not Tollgate's. */
export function promptRefOfModal(customId: string): string | undefined {
  return customId.startsWith(EDIT_MODAL_PREFIX) && customId.length > EDIT_MODAL_PREFIX.length
    ? customId.slice(EDIT_MODAL_PREFIX.length)
    : undefined;
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
