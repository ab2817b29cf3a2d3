import type { ApprovalCount, Person, Quorum } from '@tollgate/protocol';
import type { StatusMarkup } from './prompt-status';

/**
 * G1: the live tally of a prompt with a quorum, worded once for every binding:
 * "1 of 2 approvals: ✓ Alice · waiting for Bob, Carol". Up to 20 approvers each named could
 * crowd out the request itself, so the line keeps to `budget` characters (well inside every
 * platform's limit for the part it goes in): names past it are counted, not listed.
 */
export const TALLY_BUDGET = 600;

export function tallyLine(quorum: Quorum, markup: StatusMarkup, budget = TALLY_BUDGET): string {
  const count = `${quorum.approvals.length} of ${quorum.required} approval${quorum.required === 1 ? '' : 's'}`;
  const approved = quorum.approvals.map((a) => `✓ ${markup.mention(a.by)}`);
  const missing = quorum.required - quorum.approvals.length;
  const waiting = quorum.waitingFor?.map((p) => markup.mention(p));
  const separate = quorum.separateFrom
    ? ` (not ${markup.mention(quorum.separateFrom)}, who asked)`
    : '';
  const build = (shownApproved: number, shownWaiting: number): string => {
    const head =
      approved.length === 0
        ? count
        : `${count}: ${listed(approved, shownApproved, (n) => `✓ ${n} more`)}`;
    if (missing <= 0) return head;
    const who =
      waiting === undefined || waiting.length === 0
        ? `${missing} more${separate}`
        : listed(waiting, shownWaiting, (n) => `${n} more`) +
          (missing < waiting.length ? ` (${missing} needed)` : '');
    return `${head} · waiting for ${who}`;
  };
  // Fewer names until it fits: the waiting ones go first (the approvals are the record).
  let shownApproved = approved.length;
  let shownWaiting = waiting?.length ?? 0;
  let line = build(shownApproved, shownWaiting);
  while (line.length > budget && (shownWaiting > 0 || shownApproved > 0)) {
    if (shownWaiting > 0) shownWaiting -= 1;
    else shownApproved -= 1;
    line = build(shownApproved, shownWaiting);
  }
  return line.length > budget ? `${line.slice(0, budget - 1)}…` : line;
}

/**
 * The decision of a prompt with a quorum: who approved (all of them), or who vetoed and whose
 * approvals the veto overruled.
 */
export function tallyDecision(
  view: {
    readonly optionKey: string;
    readonly label: string;
    readonly resolvedBy: Person;
    readonly approvals: readonly ApprovalCount[];
  },
  markup: StatusMarkup,
  budget = TALLY_BUDGET,
): string {
  const names = view.approvals.map((a) => markup.mention(a.by));
  const label = markup.bold(markup.escape(view.label));
  const fit = (line: (shown: number) => string): string => {
    let shown = names.length;
    while (line(shown).length > budget && shown > 0) shown -= 1;
    const text = line(shown);
    return text.length > budget ? `${text.slice(0, budget - 1)}…` : text;
  };
  if (view.optionKey !== 'deny') {
    return fit((shown) => `${label} by ${listed(names, shown, (n) => `${n} more`)}`);
  }
  const veto = `${label} by ${markup.mention(view.resolvedBy)}, a veto`;
  if (names.length === 0) return veto;
  return fit(
    (shown) =>
      `${veto} overruling ${listed(
        names.map((n) => `✓ ${n}`),
        shown,
        (n) => `✓ ${n} more`,
      )}`,
  );
}

function listed(items: readonly string[], shown: number, more: (n: number) => string): string {
  const rest = items.length - shown;
  return [...items.slice(0, shown), ...(rest > 0 ? [more(rest)] : [])].join(', ');
}
