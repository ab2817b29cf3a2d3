import type { PostProps } from './mattermost-api.types';

/**
 * Pure readers of what a client sends `MattermostApiFake`: a body's JSON, a string
 * field, and the checks the server's model.Post.IsValid makes of a post's message and actions.
 * They hold no state, so every route handler can use them without reaching into the fake.
 */

/** The longest message, in runes, the server takes in a post. */
export const MAX_MESSAGE_RUNES = 16_383;

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The server's model.Post.IsValid for actions, as far as Tollgate's buttons go. */
export function invalidActions(props: unknown): string | undefined {
  if (props === undefined || props === null) return undefined;
  if (typeof props !== 'object') return 'props must be an object';
  const attachments = (props as PostProps).attachments;
  if (attachments === undefined) return undefined;
  if (!Array.isArray(attachments)) return 'attachments must be a list';
  for (const attachment of attachments) {
    for (const action of attachment.actions ?? []) {
      if (action.id !== undefined && !/^[A-Za-z0-9]+$/.test(action.id)) {
        return `action id ${action.id} is not letters and digits`;
      }
      if (!action.name) return 'action without a name';
      if (action.type !== 'button' && action.type !== 'select') return 'action type';
      if (!/^https?:\/\/|^\/plugins\//.test(action.integration?.url ?? '')) {
        return 'action integration url';
      }
    }
  }
  return undefined;
}
