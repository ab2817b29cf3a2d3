// The session state a journal replays to: a pure fold (`evolve`) of its events, and the queries
// the deciders ask of it. Its shapes are in session-state.types.ts.
import {
  abandon,
  abandonWritten,
  type ApprovalTurn,
  awaitSubAgents,
  beginRedrive,
  completeTurn,
  finishBatch,
  hasUnresolvedBatch,
  markRecovered,
  noActiveTurn,
  pendingCalls,
  type PendingApproval,
  recordRequested,
  recordResolved,
  startTurn,
  subAgentsDone,
} from './approval-turn';
import type { JournaledEvent, SessionEvent } from './session-event';
import { countedIn } from './approval-tally.decider';
import { ownEntry, setOwnEntry } from './own-entry';
import type { PendingApiApproval, SessionState } from './session-state.types';

export type {
  CurrentBatch,
  PendingApiApproval,
  RequestedCall,
  RunningSubAgent,
  SessionGrant,
  SessionState,
} from './session-state.types';

/**
 * Every prompt of the session still waiting for an answer: the parked batch's calls, and in
 * an agent session its API approvals. The pending-approvals projection (recovery, timers,
 * `tollgate pending`) is built from this.
 */
export function pendingPrompts(state: SessionState): PendingApproval[] {
  return [
    ...pendingCalls(state.turn),
    ...pendingApiApprovals(state).map(([callId, approval]) => ({
      callId,
      toolName: approval.request.toolName,
      requestedSeq: approval.requestedSeq,
    })),
  ];
}

/**
 * An agent session's pending approvals, oldest first. Not in key order: a state row is jsonb,
 * which keeps an object's keys in an order of its own.
 */
export function pendingApiApprovals(state: SessionState): [string, PendingApiApproval][] {
  return Object.entries(state.apiApprovals).sort(([, a], [, b]) => a.requestedSeq - b.requestedSeq);
}

export function holdsSessionGrant(
  state: SessionState,
  personId: string,
  toolName: string,
): boolean {
  return state.sessionGrants.some((g) => g.personId === personId && g.toolName === toolName);
}

export function initialSessionState(sessionId: string): SessionState {
  return {
    sessionId,
    version: 0,
    turn: noActiveTurn,
    requested: {},
    settledCalls: {},
    noteCount: 0,
    sessionGrants: [],
    subAgents: {},
    apiApprovals: {},
  };
}

export function replay(sessionId: string, events: readonly JournaledEvent[]): SessionState {
  return events.reduce(evolve, initialSessionState(sessionId));
}

/** Applies one journaled event. Pure; the approval turn enforces the legal moves. */
export function evolve(state: SessionState, journaled: JournaledEvent): SessionState {
  const next = apply(state, journaled.seq, journaled.event);
  return { ...next, version: journaled.seq };
}

function apply(state: SessionState, seq: number, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'SessionStarted':
      return {
        ...state,
        conversation: event.conversation,
        ...(event.apiClientId === undefined ? {} : { apiClientId: event.apiClientId }),
        ...(event.parent === undefined ? {} : { parent: event.parent }),
        ...(event.tools === undefined ? {} : { toolSubset: event.tools }),
      };
    case 'UserMessageReceived':
      return {
        ...state,
        turn: startTurn(state.turn, seq),
        turnMessage: { seq, sender: event.sender, principal: event.principal },
        batch: undefined,
        ...settleRequested(state),
      };
    case 'ToolBatchStarted':
      return {
        ...state,
        // A model that calls tools again after a redrive starts a new batch in the same turn.
        turn: finishIfRedriving(state.turn),
        batch: {
          batchId: event.batchId,
          seq,
          toolCalls: event.toolCalls,
          started: [],
          results: {},
        },
        ...settleRequested(state),
      };
    case 'ToolApprovalRequested':
      return {
        ...state,
        turn: recordRequested(state.turn, event.batchId, {
          callId: event.callId,
          toolName: event.toolName,
          requestedSeq: seq,
        }),
        requested: {
          ...state.requested,
          [event.callId]: {
            request: event.request,
            ...(event.grantOffer ? { grantOffer: event.grantOffer } : {}),
          },
        },
      };
    case 'ToolApprovalResolved': {
      const resolved = recordResolved(state.turn, {
        callId: event.callId,
        optionKey: event.optionKey,
        approved: event.approved,
        ...(event.edit === undefined ? {} : { arguments: event.edit.arguments }),
      });
      // The last sibling's answer starts the redrive (docs/architecture.md §3.3).
      const turn = hasUnresolvedBatch(resolved) ? resolved : beginRedrive(resolved);
      const call = ownEntry(state.requested, event.callId);
      const grants =
        event.optionKey === 'approve_session' &&
        call &&
        !holdsSessionGrant(state, event.resolvedBy.id, call.request.toolName)
          ? [
              ...state.sessionGrants,
              { personId: event.resolvedBy.id, toolName: call.request.toolName },
            ]
          : state.sessionGrants;
      return {
        ...state,
        turn,
        sessionGrants: grants,
        requested: call
          ? {
              ...state.requested,
              [event.callId]: {
                ...call,
                resolution: { optionKey: event.optionKey, approved: event.approved },
              },
            }
          : state.requested,
      };
    }
    case 'ToolApprovalCounted': {
      const call = ownEntry(state.requested, event.callId);
      if (!call) return state;
      const requested = { ...state.requested };
      setOwnEntry(requested, event.callId, {
        ...call,
        request: countedIn(call.request, { by: event.by, at: event.at }),
      });
      return { ...state, requested };
    }
    case 'ApiApprovalCounted': {
      const approval = ownEntry(state.apiApprovals, event.approvalId);
      if (!approval) return state;
      const apiApprovals = { ...state.apiApprovals };
      setOwnEntry(apiApprovals, event.approvalId, {
        ...approval,
        request: countedIn(approval.request, { by: event.by, at: event.at }),
      });
      return { ...state, apiApprovals };
    }
    case 'ToolApprovalRefused':
      // Audit only: a refused click changes nothing about the approval.
      return state;
    case 'ToolExecutionStarted':
      return state.batch
        ? { ...state, batch: { ...state.batch, started: [...state.batch.started, event.callId] } }
        : state;
    case 'ToolCallRecorded':
      return {
        ...state,
        noteCount: event.note === undefined ? state.noteCount : state.noteCount + 1,
        batch: state.batch
          ? {
              ...state.batch,
              results: {
                ...state.batch.results,
                [event.callId]: { outcome: event.outcome, result: event.result },
              },
            }
          : state.batch,
      };
    case 'ToolBatchAbandoned': {
      const requested = { ...state.requested };
      for (const { callId } of event.results) {
        const call = ownEntry(requested, callId);
        if (call && !call.resolution) setOwnEntry(requested, callId, { ...call, abandoned: true });
      }
      // Unanswered calls of an abandoned batch can never be answered again, whatever
      // their resolution state in the batch.
      for (const [callId, call] of Object.entries(requested)) {
        if (call.request.batchId === event.batchId && !call.resolution) {
          setOwnEntry(requested, callId, { ...call, abandoned: true });
        }
      }
      const abandoning = abandon(state.turn, event.reason);
      return {
        ...state,
        turn: abandonWritten(abandoning, {}),
        requested,
        batch: undefined,
        subAgents: {},
      };
    }
    case 'SubAgentStarted':
      return {
        ...state,
        subAgents: {
          ...state.subAgents,
          [event.callId]: { childSessionId: event.childSessionId, name: event.name },
        },
      };
    case 'SubAgentsAwaited':
      return { ...state, turn: awaitSubAgents(state.turn, event.batchId) };
    case 'SubAgentFinished': {
      const subAgents = { ...state.subAgents };
      delete subAgents[event.callId];
      const last =
        state.turn.phase === 'WaitingForSubAgents' && Object.keys(subAgents).length === 0;
      return { ...state, subAgents, turn: last ? subAgentsDone(state.turn) : state.turn };
    }
    case 'ApiApprovalRequested':
      return event.request === undefined
        ? state
        : {
            ...state,
            apiApprovals: {
              ...state.apiApprovals,
              [event.approvalId]: {
                request: event.request,
                requestedSeq: seq,
                ...(event.request.editable === undefined ? {} : { arguments: event.arguments }),
                ...(event.grantOffer === undefined ? {} : { grantOffer: event.grantOffer }),
              },
            },
          };
    case 'ApiApprovalDecided': {
      const apiApprovals = { ...state.apiApprovals };
      delete apiApprovals[event.approvalId];
      const by = event.decision?.by.id;
      const grants =
        event.decision?.option === 'approve_session' &&
        by !== undefined &&
        !holdsSessionGrant(state, by, event.tool)
          ? [...state.sessionGrants, { personId: by, toolName: event.tool }]
          : state.sessionGrants;
      return {
        ...state,
        apiApprovals,
        sessionGrants: grants,
        // "Answered" as a late click needs it: a person or a grant decided, not the clock.
        settledCalls: {
          ...state.settledCalls,
          [event.approvalId]: event.decision !== null && event.decision.via !== 'deadline',
        },
      };
    }
    case 'SessionRecovered':
      // An agent session has no turn: its API approvals are refreshed, nothing else moves.
      return state.apiClientId === undefined
        ? { ...state, turn: markRecovered(state.turn) }
        : state;
    case 'PendingApprovalsReannounced':
    case 'ToolApprovalReminded':
    case 'ToolCallGranted':
    case 'PromptShown':
      return state;
    case 'TurnCompleted':
      return {
        ...state,
        turn: completeTurn(finishIfRedriving(state.turn)),
        batch: undefined,
      };
    case 'TurnFailed':
      return { ...state, turn: noActiveTurn, batch: undefined };
    case 'SessionQuarantined':
      // Written only when nothing before it could be replayed; nothing after it is decided.
      return state;
  }
}

/** A new batch or turn: the previous batch's calls keep only whether they were answered. */
function settleRequested(state: SessionState): Pick<SessionState, 'requested' | 'settledCalls'> {
  const entries = Object.entries(state.requested);
  if (entries.length === 0) return { requested: state.requested, settledCalls: state.settledCalls };
  const settledCalls = { ...state.settledCalls };
  for (const [callId, call] of entries) {
    setOwnEntry(settledCalls, callId, call.resolution !== undefined);
  }
  return { requested: {}, settledCalls };
}

function finishIfRedriving(turn: ApprovalTurn): ApprovalTurn {
  return turn.phase === 'Redriving' ? finishBatch(turn) : turn;
}
