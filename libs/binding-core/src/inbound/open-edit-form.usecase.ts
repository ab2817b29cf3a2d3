import type { PromptJournal } from '../journal/prompt-journal.port';
import { isPromptRef } from '../prompt/prompt-ref';
import { type EditForm, editFormOf } from './edit-form';

export type EditFormOpened =
  | { readonly kind: 'form'; readonly form: EditForm }
  /** No pending prompt carries this reference (never, or answered meanwhile). */
  | { readonly kind: 'unknown_prompt' }
  | { readonly kind: 'not_editable' };

/**
 * G2: the form for an "Edit & approve" click, from the binding's own journal only. A platform
 * lets the form be opened only briefly after the click (Slack's trigger_id lives 3 s), so this
 * never waits on the session service: it may be stopped, and the form still opens. Whether the
 * clicker may answer, and whether the edit is allowed, the session decides on submission.
 */
export class OpenEditForm {
  constructor(private readonly prompts: Pick<PromptJournal, 'findByRef' | 'findByKey'>) {}

  async execute(promptRef: string): Promise<EditFormOpened> {
    if (!isPromptRef(promptRef)) return { kind: 'unknown_prompt' };
    const address = await this.prompts.findByRef(promptRef);
    if (!address) return { kind: 'unknown_prompt' };
    const prompt = await this.prompts.findByKey(address.key);
    if (prompt?.state.status !== 'pending') return { kind: 'unknown_prompt' };
    const form = editFormOf(prompt.state.request, promptRef);
    return form ? { kind: 'form', form } : { kind: 'not_editable' };
  }
}
