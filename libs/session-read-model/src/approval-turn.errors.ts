import type { ApprovalPhase } from './approval-turn';

/** A move the approval turn does not allow from its current phase. */
export class IllegalApprovalTransition extends Error {
  constructor(
    readonly action: string,
    readonly phase: ApprovalPhase,
    detail?: string,
  ) {
    super(`cannot ${action} while ${phase}${detail ? `: ${detail}` : ''}`);
    this.name = 'IllegalApprovalTransition';
  }
}
