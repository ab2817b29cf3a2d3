import type { Approval } from './approval';

/** What a gated call does next with the approval its idempotency key found. */
export type HeldCallStep =
  | { readonly kind: 'wait' }
  | { readonly kind: 'redeem' }
  | { readonly kind: 'refuse'; readonly text: string }
  /** The approval was used up by an earlier call: this call needs an approval of its own. */
  | { readonly kind: 'ask_again' };

/**
 * `reported` is whether this gateway already answered a call with this approval's outcome.
 * Without it, the identical call after a denial would be denied again forever; after a
 * gateway restart the memory is gone, so one stale denial may be repeated once — never a run.
 */
export function nextStep(approval: Approval, reported: boolean): HeldCallStep {
  if (reported && approval.status !== 'pending') return { kind: 'ask_again' };
  switch (approval.status) {
    case 'pending':
      return { kind: 'wait' };
    case 'approved':
      return approval.redeemedAt === null ? { kind: 'redeem' } : { kind: 'ask_again' };
    case 'denied':
      return {
        kind: 'refuse',
        text: `Denied by ${deciderName(approval)}: ${approval.decision?.reason ?? 'no reason given'}`,
      };
    case 'expired':
      return {
        kind: 'refuse',
        text: `Approval ${approval.id} expired without a decision; the tool did not run.`,
      };
    case 'cancelled':
      return {
        kind: 'refuse',
        text: `Approval ${approval.id} was withdrawn; the tool did not run.`,
      };
  }
}

/** The answer to a call whose hold ended undecided: the same call later waits on the same approval. */
export function stillPendingText(approval: Approval, holdSeconds: number): string {
  return (
    `Approval ${approval.id} is still waiting for a decision in chat after ${holdSeconds} s; ` +
    'the tool has not run. Call this tool again with the same arguments to keep waiting on it.'
  );
}

function deciderName(approval: Approval): string {
  const by = approval.decision?.by;
  if (by === null || by === undefined)
    return approval.decision?.via === 'deadline' ? 'deadline' : 'Tollgate';
  return by.displayName ?? by.id;
}
