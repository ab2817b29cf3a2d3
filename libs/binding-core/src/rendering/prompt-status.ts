import { type Person, WITHDRAWN_BY_AGENT } from '@tollgate/protocol';
import type { PromptView } from '../platform-adapter.port';
import { tallyDecision, tallyLine } from './prompt-tally';

/** How a platform's markup writes bold text, escapes user text and mentions a person. */
export interface StatusMarkup {
  bold(text: string): string;
  escape(text: string): string;
  mention(person: Person): string;
}

/**
 * The lifecycle line every binding shows under a prompt, worded once (docs/protocol.md §7: "still
 * valid" and "restart", "superseded", "expired", the decision and who). Undefined while the
 * prompt is simply pending.
 */
export function promptStatusLine(view: PromptView, markup: StatusMarkup): string | undefined {
  switch (view.kind) {
    case 'pending':
      // G1: a prompt with a quorum shows its tally while it waits.
      return view.request.quorum === undefined ? undefined : tallyLine(view.request.quorum, markup);
    case 'refreshed': {
      const still = ':arrows_counterclockwise: Tollgate restarted; this request is still valid.';
      return view.request.quorum === undefined
        ? still
        : `${still}\n${tallyLine(view.request.quorum, markup)}`;
    }
    case 'resolved': {
      if (view.approvals !== undefined)
        return tallyDecision({ ...view, approvals: view.approvals }, markup);
      const decided = `${markup.bold(markup.escape(view.label))} by ${markup.mention(view.resolvedBy)}`;
      if (view.edit === undefined) return decided;
      // G2: the change is shown with who made it, so the thread says what actually ran.
      const changes = view.edit.changes.map(
        (c) => `\n• ${markup.escape(c.name)}: ${markup.escape(c.from)} → ${markup.escape(c.to)}`,
      );
      return changes.length === 0
        ? `${decided}, edited with no change`
        : `${decided}, with edited arguments:${changes.join('')}`;
    }
    case 'abandoned':
      // A2: the agent withdrew its own request; nothing superseded it.
      if (view.reason === WITHDRAWN_BY_AGENT) return `:no_entry_sign: ${WITHDRAWN_BY_AGENT}.`;
      return `:no_entry_sign: This request was superseded${reasonSuffix(view.reason, 'superseded', markup)}.`;
    case 'expired':
      return `:hourglass: This request has expired${reasonSuffix(view.reason, 'expired', markup)}.`;
  }
}

/** The session's reason, without the words the banner already says ("this request has expired"). */
function reasonSuffix(reason: string | undefined, already: string, markup: StatusMarkup): string {
  if (!reason) return '';
  const rest = reason
    .replace(new RegExp(`^(this request (has )?)?${already}`, 'i'), '')
    .replace(/^[\s:,.-]+/, '')
    .trim();
  return rest ? ` (${markup.escape(rest)})` : '';
}
