/**
 * G2: what became of the forms a panel's stand-in opened. The stand-ins keep every form the
 * binding opened; a person's submission or "Cancel" ends one, and a binding's answer that keeps
 * it open (Slack's `response_action: errors`, Mattermost's `error`) is shown in it.
 */
export class FormOutcomes {
  private readonly ended = new Set<string>();
  private readonly errors = new Map<string, string>();

  isOpen(id: string): boolean {
    return !this.ended.has(id);
  }

  end(id: string): void {
    this.ended.add(id);
    this.errors.delete(id);
  }

  /** The submission was answered: ends the form, or keeps it open with the binding's reason. */
  answered(id: string, reply: unknown): void {
    const error = keptOpenBecause(reply);
    if (error === undefined) this.end(id);
    else this.errors.set(id, error);
  }

  errorOf(id: string): string | undefined {
    return this.errors.get(id);
  }

  /** Changes whenever a form ends or gets a reason, so the page redraws it. */
  signature(): string {
    return `${this.ended.size}/${[...this.errors.values()].join('|').length}`;
  }
}

/** The reason in a submission's answer that keeps the form open, if any. */
function keptOpenBecause(reply: unknown): string | undefined {
  if (typeof reply !== 'object' || reply === null) return undefined;
  const { error, errors } = reply as { error?: unknown; errors?: unknown };
  if (typeof error === 'string' && error !== '') return error;
  if (typeof errors === 'object' && errors !== null) {
    const first = Object.values(errors).find((e): e is string => typeof e === 'string');
    if (first !== undefined) return first;
  }
  return undefined;
}
