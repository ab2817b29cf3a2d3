import type { ToolInteractionResponse } from '@tollgate/protocol';

/**
 * G4: how an answer reached the session — a button (`click`) or a typed reply (`text`, which
 * the binding marks on the command) — journaled with the answer so the audit trail says so.
 */
export function answerVia(command: ToolInteractionResponse): { readonly via: 'click' | 'text' } {
  return { via: command.via === 'text' ? 'text' : 'click' };
}
