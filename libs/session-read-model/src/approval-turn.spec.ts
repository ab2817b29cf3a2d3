import {
  abandon,
  abandonWritten,
  type ApprovalPhase,
  type ApprovalTurn,
  awaitSubAgents,
  beginRedrive,
  completeTurn,
  finishBatch,
  hasUnresolvedBatch,
  markRecovered,
  noActiveTurn,
  pendingCalls,
  pendingFor,
  recordRequested,
  recordResolved,
  redriveDecisions,
  startTurn,
  subAgentsDone,
} from './approval-turn';
import { IllegalApprovalTransition } from './approval-turn.errors';

const call = (callId: string, requestedSeq = 3) => ({
  callId,
  toolName: 'write_note',
  requestedSeq,
});
const approve = (callId: string) => ({ callId, optionKey: 'approve_once', approved: true });
const deny = (callId: string) => ({ callId, optionKey: 'deny', approved: false });

/** One representative value per phase, reached only through legal moves. */
function inPhase(phase: ApprovalPhase): ApprovalTurn {
  const running = startTurn(noActiveTurn, 2);
  const waiting = recordRequested(recordRequested(running, 'b1', call('c1')), 'b1', call('c2', 4));
  switch (phase) {
    case 'NoActive':
      return noActiveTurn;
    case 'Running':
      return running;
    case 'WaitingForApprovals':
      return waiting;
    case 'RecoveredWaitingForApprovals':
      return markRecovered(waiting);
    case 'Redriving':
      return beginRedrive(recordResolved(recordResolved(waiting, approve('c1')), deny('c2')));
    case 'Abandoning':
      return abandon(waiting, 'superseded');
    case 'WaitingForSubAgents':
      return awaitSubAgents(running, 'b1');
  }
}

const PHASES: ApprovalPhase[] = [
  'NoActive',
  'Running',
  'WaitingForApprovals',
  'RecoveredWaitingForApprovals',
  'Redriving',
  'Abandoning',
  'WaitingForSubAgents',
];

/**
 * Every mutator, the phases from which the diagram (docs/architecture.md §3.2) allows it, and
 * the phase each of those moves leads to; from any other phase it is refused.
 */
const MOVES: Record<
  string,
  { leadsTo: Partial<Record<ApprovalPhase, ApprovalPhase>>; apply(t: ApprovalTurn): ApprovalTurn }
> = {
  'start a turn': { leadsTo: { NoActive: 'Running' }, apply: (t) => startTurn(t, 9) },
  'record a request': {
    leadsTo: { Running: 'WaitingForApprovals', WaitingForApprovals: 'WaitingForApprovals' },
    apply: (t) => recordRequested(t, 'b1', call('c3', 5)),
  },
  'record a decision': {
    leadsTo: {
      WaitingForApprovals: 'WaitingForApprovals',
      RecoveredWaitingForApprovals: 'RecoveredWaitingForApprovals',
    },
    apply: (t) => recordResolved(t, approve('c1')),
  },
  'mark recovered': {
    leadsTo: {
      WaitingForApprovals: 'RecoveredWaitingForApprovals',
      RecoveredWaitingForApprovals: 'RecoveredWaitingForApprovals',
    },
    apply: markRecovered,
  },
  // Redriving needs every sibling answered, so the move answers what is still pending first.
  'begin the redrive': {
    leadsTo: { WaitingForApprovals: 'Redriving', RecoveredWaitingForApprovals: 'Redriving' },
    apply: (t) =>
      beginRedrive(pendingCalls(t).reduce((turn, p) => recordResolved(turn, approve(p.callId)), t)),
  },
  'finish the batch': { leadsTo: { Redriving: 'Running' }, apply: finishBatch },
  'complete the turn': { leadsTo: { Running: 'NoActive' }, apply: completeTurn },
  'await sub-agents': {
    leadsTo: { Running: 'WaitingForSubAgents', Redriving: 'WaitingForSubAgents' },
    apply: (t) => awaitSubAgents(t, 'b1'),
  },
  'resume after sub-agents': {
    leadsTo: { WaitingForSubAgents: 'Redriving' },
    apply: subAgentsDone,
  },
  'abandon as superseded': {
    leadsTo: {
      WaitingForApprovals: 'Abandoning',
      RecoveredWaitingForApprovals: 'Abandoning',
      WaitingForSubAgents: 'Abandoning',
    },
    apply: (t) => abandon(t, 'superseded'),
  },
  'abandon as interrupted': {
    leadsTo: {
      Running: 'Abandoning',
      WaitingForApprovals: 'Abandoning',
      RecoveredWaitingForApprovals: 'Abandoning',
      Redriving: 'Abandoning',
      WaitingForSubAgents: 'Abandoning',
    },
    apply: (t) => abandon(t, 'interrupted'),
  },
  'finish abandoning': {
    leadsTo: { Abandoning: 'NoActive' },
    apply: (t) => abandonWritten(t, {}),
  },
};

describe('S13 approval turn phases', () => {
  describe.each(Object.entries(MOVES))('%s', (_name, move) => {
    it.each(PHASES)('S13 from %s: the phase the diagram names, or refused', (phase) => {
      const before = inPhase(phase);
      const expected = move.leadsTo[phase];
      if (expected === undefined) {
        expect(() => move.apply(before)).toThrow(IllegalApprovalTransition);
      } else {
        expect(move.apply(before).phase).toBe(expected);
      }
    });
  });

  it('S13 walks the whole lifecycle: park, recover twice, answer both, redrive, complete', () => {
    let turn = startTurn(noActiveTurn, 2);
    turn = recordRequested(turn, 'b1', call('c1'));
    expect(turn.phase).toBe('WaitingForApprovals');
    turn = recordRequested(turn, 'b1', call('c2', 4));
    turn = markRecovered(turn);
    turn = markRecovered(turn);
    expect(turn).toMatchObject({ phase: 'RecoveredWaitingForApprovals', recoveries: 2 });
    turn = recordResolved(turn, approve('c1'));
    expect(pendingFor(turn, 'c1')).toBeUndefined();
    expect(pendingCalls(turn).map((p) => p.callId)).toEqual(['c2']);
    expect(() => beginRedrive(turn)).toThrow(/still unanswered/);
    turn = recordResolved(turn, deny('c2'));
    expect(hasUnresolvedBatch(turn)).toBe(false);
    turn = beginRedrive(turn);
    expect(redriveDecisions(turn).map((d) => [d.callId, d.approved])).toEqual([
      ['c1', true],
      ['c2', false],
    ]);
    turn = finishBatch(turn);
    expect(completeTurn(turn)).toEqual(noActiveTurn);
  });

  it('S13 a superseded batch ends, and a new turn can start', () => {
    const abandoning = abandon(inPhase('RecoveredWaitingForApprovals'), 'superseded');
    expect(abandoning).toMatchObject({ phase: 'Abandoning', reason: 'superseded' });
    expect(abandonWritten(abandoning, { newTurnSeq: 12 })).toEqual({
      phase: 'Running',
      turnSeq: 12,
    });
    expect(abandonWritten(abandoning, {})).toEqual(noActiveTurn);
  });

  it('S13 refuses a decision for a call that is not pending, or one answered already', () => {
    const waiting = inPhase('WaitingForApprovals');
    expect(() => recordResolved(waiting, approve('nope'))).toThrow(/not pending/);
    const answered = recordResolved(waiting, approve('c1'));
    expect(() => recordResolved(answered, deny('c1'))).toThrow(IllegalApprovalTransition);
  });

  it('S13 refuses a request for another batch while one is parked, or the same call twice', () => {
    const waiting = inPhase('WaitingForApprovals');
    expect(() => recordRequested(waiting, 'b2', call('c9'))).toThrow(/not the parked batch/);
    expect(() => recordRequested(waiting, 'b1', call('c1'))).toThrow(/already requested/);
  });

  it('S13 names the phase and action in the error', () => {
    try {
      completeTurn(inPhase('WaitingForApprovals'));
      throw new Error('expected a throw');
    } catch (error) {
      expect(error).toBeInstanceOf(IllegalApprovalTransition);
      expect(error).toMatchObject({ action: 'complete the turn', phase: 'WaitingForApprovals' });
    }
  });
});
