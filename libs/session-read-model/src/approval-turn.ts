import { IllegalApprovalTransition } from './approval-turn.errors';
import { ownEntry } from './own-entry';

/**
 * The approval turn (docs/architecture.md §3.2): the one value that owns the current batch's
 * approvals. Every transition is a pure function returning a new value; a move the diagram
 * does not allow throws IllegalApprovalTransition, so a bug surfaces as an error instead of
 * a prompt that silently stops matching the journal.
 *
 *   NoActive ─start─▶ Running ─gated call─▶ WaitingForApprovals ─recovery─▶ RecoveredWaiting…
 *   Waiting* ─last answer─▶ Redriving ─batch done─▶ Running ─turn ends─▶ NoActive
 *   Waiting* / Redriving ─abandon─▶ Abandoning ─written─▶ Running (new turn) | NoActive
 *   Running ─interrupted by a crash─▶ Abandoning
 *   Running / Redriving ─sub-agents at work─▶ WaitingForSubAgents ─last result─▶ Redriving
 */

export interface PendingApproval {
  readonly callId: string;
  readonly toolName: string;
  /** Journal seq of the ToolApprovalRequested event. */
  readonly requestedSeq: number;
}

export interface ApprovalDecision {
  readonly callId: string;
  readonly optionKey: string;
  readonly approved: boolean;
  /** G2: the arguments an approver edited the call to (a JSON text); absent: as asked. */
  readonly arguments?: string;
}

export interface Batch {
  readonly batchId: string;
  /** Every gated call of the batch, in batch order. */
  readonly gated: readonly PendingApproval[];
  readonly decisions: Readonly<Record<string, ApprovalDecision>>;
}

export type ApprovalTurn =
  | { readonly phase: 'NoActive' }
  | { readonly phase: 'Running'; readonly turnSeq: number }
  | { readonly phase: 'WaitingForApprovals'; readonly turnSeq: number; readonly batch: Batch }
  | {
      readonly phase: 'RecoveredWaitingForApprovals';
      readonly turnSeq: number;
      readonly batch: Batch;
      readonly recoveries: number;
    }
  | { readonly phase: 'Redriving'; readonly turnSeq: number; readonly batch: Batch }
  /**
   * Every call of the batch is answered and run, except `delegate` calls whose sub-agents are
   * still at work: parked like a gated call, resumed by the last sub-agent's result.
   */
  | { readonly phase: 'WaitingForSubAgents'; readonly turnSeq: number; readonly batch: Batch }
  | {
      readonly phase: 'Abandoning';
      readonly turnSeq: number;
      /** Absent when a turn with no approvals (only auto tools) was interrupted. */
      readonly batch?: Batch;
      readonly reason: AbandonReason;
    };

export type ApprovalPhase = ApprovalTurn['phase'];
export type AbandonReason = 'superseded' | 'expired' | 'interrupted';
type Waiting = Extract<
  ApprovalTurn,
  { phase: 'WaitingForApprovals' | 'RecoveredWaitingForApprovals' }
>;

export const noActiveTurn: ApprovalTurn = { phase: 'NoActive' };

function isWaiting(turn: ApprovalTurn): turn is Waiting {
  return turn.phase === 'WaitingForApprovals' || turn.phase === 'RecoveredWaitingForApprovals';
}

function requireWaiting(turn: ApprovalTurn, action: string): Waiting {
  if (!isWaiting(turn)) throw new IllegalApprovalTransition(action, turn.phase);
  return turn;
}

// ── mutators ────────────────────────────────────────────────────────────────────────────

export function startTurn(turn: ApprovalTurn, turnSeq: number): ApprovalTurn {
  if (turn.phase !== 'NoActive') throw new IllegalApprovalTransition('start a turn', turn.phase);
  return { phase: 'Running', turnSeq };
}

/**
 * A gated call: the first one parks the batch (Running → WaitingForApprovals); its gated
 * siblings join the same parked batch.
 */
export function recordRequested(
  turn: ApprovalTurn,
  batchId: string,
  approval: PendingApproval,
): ApprovalTurn {
  if (turn.phase === 'Running') {
    return {
      phase: 'WaitingForApprovals',
      turnSeq: turn.turnSeq,
      batch: { batchId, gated: [approval], decisions: {} },
    };
  }
  if (turn.phase !== 'WaitingForApprovals') {
    throw new IllegalApprovalTransition('record a request', turn.phase);
  }
  if (turn.batch.batchId !== batchId) {
    throw new IllegalApprovalTransition(
      'record a request',
      turn.phase,
      `batch ${batchId} is not the parked batch ${turn.batch.batchId}`,
    );
  }
  if (turn.batch.gated.some((g) => g.callId === approval.callId)) {
    throw new IllegalApprovalTransition(
      'record a request',
      turn.phase,
      `call ${approval.callId} is already requested`,
    );
  }
  return { ...turn, batch: { ...turn.batch, gated: [...turn.batch.gated, approval] } };
}

export function recordResolved(turn: ApprovalTurn, decision: ApprovalDecision): ApprovalTurn {
  const waiting = requireWaiting(turn, 'record a decision');
  if (!pendingFor(waiting, decision.callId)) {
    throw new IllegalApprovalTransition(
      'record a decision',
      turn.phase,
      `call ${decision.callId} is not pending`,
    );
  }
  return {
    ...waiting,
    batch: {
      ...waiting.batch,
      decisions: { ...waiting.batch.decisions, [decision.callId]: decision },
    },
  };
}

export function markRecovered(turn: ApprovalTurn): ApprovalTurn {
  const waiting = requireWaiting(turn, 'mark recovered');
  return {
    phase: 'RecoveredWaitingForApprovals',
    turnSeq: waiting.turnSeq,
    batch: waiting.batch,
    recoveries: waiting.phase === 'RecoveredWaitingForApprovals' ? waiting.recoveries + 1 : 1,
  };
}

export function beginRedrive(turn: ApprovalTurn): ApprovalTurn {
  const waiting = requireWaiting(turn, 'redrive');
  if (hasUnresolvedBatch(waiting)) {
    throw new IllegalApprovalTransition('redrive', turn.phase, 'some calls are still unanswered');
  }
  return { phase: 'Redriving', turnSeq: waiting.turnSeq, batch: waiting.batch };
}

/** The batch's only unfinished calls are delegated: wait for their sub-agents. */
export function awaitSubAgents(turn: ApprovalTurn, batchId: string): ApprovalTurn {
  if (turn.phase === 'Running') {
    return {
      phase: 'WaitingForSubAgents',
      turnSeq: turn.turnSeq,
      batch: { batchId, gated: [], decisions: {} },
    };
  }
  if (turn.phase === 'Redriving') {
    return { phase: 'WaitingForSubAgents', turnSeq: turn.turnSeq, batch: turn.batch };
  }
  throw new IllegalApprovalTransition('await sub-agents', turn.phase);
}

/** The last sub-agent answered: the batch goes on as a redrive of its decisions. */
export function subAgentsDone(turn: ApprovalTurn): ApprovalTurn {
  if (turn.phase !== 'WaitingForSubAgents') {
    throw new IllegalApprovalTransition('resume after sub-agents', turn.phase);
  }
  return { phase: 'Redriving', turnSeq: turn.turnSeq, batch: turn.batch };
}

export function finishBatch(turn: ApprovalTurn): ApprovalTurn {
  if (turn.phase !== 'Redriving')
    throw new IllegalApprovalTransition('finish the batch', turn.phase);
  return { phase: 'Running', turnSeq: turn.turnSeq };
}

/** Ends the turn; an unanswered batch must be abandoned first, never dropped. */
export function completeTurn(turn: ApprovalTurn): ApprovalTurn {
  if (turn.phase !== 'Running')
    throw new IllegalApprovalTransition('complete the turn', turn.phase);
  return noActiveTurn;
}

export function abandon(turn: ApprovalTurn, reason: AbandonReason): ApprovalTurn {
  if (isWaiting(turn) || turn.phase === 'WaitingForSubAgents')
    return { phase: 'Abandoning', turnSeq: turn.turnSeq, batch: turn.batch, reason };
  // A redrive ends early only when it cannot finish: a crash mid-run or a context/tool that
  // is gone. A superseding message waits its turn behind the session lock instead.
  if (turn.phase === 'Redriving' && reason !== 'superseded') {
    return { phase: 'Abandoning', turnSeq: turn.turnSeq, batch: turn.batch, reason };
  }
  // A crash while an auto tool ran leaves the turn Running with a call started, unfinished.
  if (turn.phase === 'Running' && reason === 'interrupted') {
    return { phase: 'Abandoning', turnSeq: turn.turnSeq, reason };
  }
  throw new IllegalApprovalTransition(`abandon (${reason})`, turn.phase);
}

/** Synthetic results are written; a superseding message starts its own turn. */
export function abandonWritten(turn: ApprovalTurn, next: { newTurnSeq?: number }): ApprovalTurn {
  if (turn.phase !== 'Abandoning')
    throw new IllegalApprovalTransition('finish abandoning', turn.phase);
  return next.newTurnSeq === undefined
    ? noActiveTurn
    : { phase: 'Running', turnSeq: next.newTurnSeq };
}

// ── queries ─────────────────────────────────────────────────────────────────────────────

/** The pending (requested, unanswered, parked) approval for a call, if any. */
export function pendingFor(turn: ApprovalTurn, callId: string): PendingApproval | undefined {
  if (!isWaiting(turn)) return undefined;
  return turn.batch.gated.find(
    (g) => g.callId === callId && !ownEntry(turn.batch.decisions, g.callId),
  );
}

export function pendingCalls(turn: ApprovalTurn): readonly PendingApproval[] {
  if (!isWaiting(turn)) return [];
  return turn.batch.gated.filter((g) => !ownEntry(turn.batch.decisions, g.callId));
}

export function hasUnresolvedBatch(turn: ApprovalTurn): boolean {
  return pendingCalls(turn).length > 0;
}

export function isParked(turn: ApprovalTurn): boolean {
  return isWaiting(turn);
}

export function isAwaitingSubAgents(turn: ApprovalTurn): boolean {
  return turn.phase === 'WaitingForSubAgents';
}

export function isRecovered(turn: ApprovalTurn): boolean {
  return turn.phase === 'RecoveredWaitingForApprovals';
}

export function decisionFor(turn: ApprovalTurn, callId: string): ApprovalDecision | undefined {
  return 'batch' in turn ? ownEntry(turn.batch?.decisions, callId) : undefined;
}

/** The decisions of the batch being redriven, in batch order. */
export function redriveDecisions(turn: ApprovalTurn): readonly ApprovalDecision[] {
  if (turn.phase !== 'Redriving')
    throw new IllegalApprovalTransition('read redrive decisions', turn.phase);
  return turn.batch.gated.flatMap((g) => {
    const decision = ownEntry(turn.batch.decisions, g.callId);
    return decision ? [decision] : [];
  });
}
