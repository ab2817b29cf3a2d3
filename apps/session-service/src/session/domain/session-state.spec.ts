import { STANDARD_OPTIONS } from '@tollgate/protocol';
import {
  aRequest,
  conversation,
  sessionId,
} from '../../../../../libs/protocol/src/testing/message-fixtures';
import {
  holdsSessionGrant,
  IllegalApprovalTransition,
  initialSessionState,
  type JournaledEvent,
  pendingCalls,
  replay,
  type SessionEvent,
} from '@tollgate/session-read-model';
import { historyOf } from './provider-history';

const AT = '2024-05-01T12:00:00.000Z';
const ADA = { id: 'U0001', displayName: 'Ada' };

function journal(...events: SessionEvent[]): JournaledEvent[] {
  return events.map((event, i) => ({ seq: i + 1, occurredAt: AT, event }));
}

const started: SessionEvent = { type: 'SessionStarted', conversation };
const message = (text: string): SessionEvent => ({
  type: 'UserMessageReceived',
  commandId: `m-${text}`,
  sender: ADA,
  text,
  principal: 'user',
});
const batch = (batchId: string, ...callIds: string[]): SessionEvent => ({
  type: 'ToolBatchStarted',
  batchId,
  content: '',
  toolCalls: callIds.map((callId) => ({
    callId,
    toolName: 'write_note',
    arguments: '{"text":"x"}',
  })),
});
const requested = (batchId: string, callId: string, seq: number): SessionEvent => ({
  type: 'ToolApprovalRequested',
  batchId,
  callId,
  toolName: 'write_note',
  displayText: 'Write a note: "x"',
  requester: ADA,
  principal: 'user',
  options: [STANDARD_OPTIONS.approve_once, STANDARD_OPTIONS.deny],
  request: aRequest({ callId, batchId, id: `${sessionId}:${seq}:0`, seq }),
});
const resolved = (callId: string, optionKey: string): SessionEvent => ({
  type: 'ToolApprovalResolved',
  commandId: `click-${callId}`,
  callId,
  optionKey,
  label: optionKey,
  approved: optionKey !== 'deny',
  resolvedBy: ADA,
});

const abandonedB3: SessionEvent = {
  type: 'ToolBatchAbandoned',
  batchId: 'b3',
  reason: 'superseded',
  results: [
    { callId: 'c1', result: 'not run' },
    { callId: 'c2', result: 'not run' },
  ],
};

/** Seqs: 1 started, 2 message, 3 batch b3, 4 request c1, 5 request c2. */
const parkedTwo = journal(
  started,
  message('go'),
  batch('b3', 'c1', 'c2'),
  requested('b3', 'c1', 4),
  requested('b3', 'c2', 5),
);

describe('session state (evolve / replay)', () => {
  it('given no events, the session does not exist yet', () => {
    expect(replay(sessionId, [])).toEqual(initialSessionState(sessionId));
    expect(replay(sessionId, []).version).toBe(0);
  });

  it('given a parked batch, both calls are pending and the version is the last seq', () => {
    const state = replay(sessionId, parkedTwo);

    expect(state.version).toBe(5);
    expect(state.conversation).toEqual(conversation);
    expect(state.turn).toMatchObject({ phase: 'WaitingForApprovals', turnSeq: 2 });
    expect(pendingCalls(state.turn).map((p) => [p.callId, p.requestedSeq])).toEqual([
      ['c1', 4],
      ['c2', 5],
    ]);
    expect(state.turnMessage).toEqual({ seq: 2, sender: ADA, principal: 'user' });
  });

  it('given one answer of two, the batch still waits; given both, it redrives', () => {
    const one = replay(sessionId, [
      ...parkedTwo,
      { seq: 6, occurredAt: AT, event: resolved('c1', 'approve_once') },
    ]);
    expect(one.turn.phase).toBe('WaitingForApprovals');
    expect(one.requested.c1.resolution).toEqual({ optionKey: 'approve_once', approved: true });

    const both = replay(sessionId, [
      ...parkedTwo,
      { seq: 6, occurredAt: AT, event: resolved('c1', 'approve_once') },
      { seq: 7, occurredAt: AT, event: resolved('c2', 'deny') },
    ]);
    expect(both.turn.phase).toBe('Redriving');
  });

  it('X2 grants the tool for the session, to the approver only, only on approve_session', () => {
    const once = replay(sessionId, [
      ...parkedTwo,
      { seq: 6, occurredAt: AT, event: resolved('c1', 'approve_once') },
    ]);
    const session = replay(sessionId, [
      ...parkedTwo,
      { seq: 6, occurredAt: AT, event: resolved('c1', 'approve_session') },
      { seq: 7, occurredAt: AT, event: resolved('c2', 'approve_session') },
    ]);

    expect(once.sessionGrants).toEqual([]);
    expect(session.sessionGrants).toEqual([{ personId: ADA.id, toolName: 'write_note' }]);
    expect(holdsSessionGrant(session, ADA.id, 'write_note')).toBe(true);
    expect(holdsSessionGrant(session, 'U-someone-else', 'write_note')).toBe(false);
  });

  it('given an abandoned batch, its unanswered calls can never be answered and history is healed', () => {
    const state = replay(sessionId, [
      ...parkedTwo,
      { seq: 6, occurredAt: AT, event: resolved('c1', 'approve_once') },
      { seq: 7, occurredAt: AT, event: abandonedB3 },
    ]);

    expect(state.turn.phase).toBe('NoActive');
    expect(state.batch).toBeUndefined();
    expect(state.requested.c1).toMatchObject({ resolution: { approved: true } });
    expect(state.requested.c1.abandoned).toBeUndefined();
    expect(state.requested.c2.abandoned).toBe(true);
    const history = historyOf([
      ...parkedTwo,
      { seq: 7, occurredAt: AT, event: { ...abandonedB3 } },
    ]);
    expect(history.filter((m) => m.role === 'tool').map((m) => m.callId)).toEqual(['c1', 'c2']);
  });

  it('counts recoveries', () => {
    const state = replay(sessionId, [
      ...parkedTwo,
      { seq: 6, occurredAt: AT, event: { type: 'SessionRecovered', pendingCallIds: ['c1', 'c2'] } },
      { seq: 7, occurredAt: AT, event: { type: 'SessionRecovered', pendingCallIds: ['c1', 'c2'] } },
    ]);

    expect(state.turn).toMatchObject({ phase: 'RecoveredWaitingForApprovals', recoveries: 2 });
  });

  it('keeps the notes a tool stored', () => {
    const state = replay(sessionId, [
      ...journal(started, message('go'), batch('b3', 'c1')),
      {
        seq: 4,
        occurredAt: AT,
        event: {
          type: 'ToolCallRecorded',
          callId: 'c1',
          toolName: 'write_note',
          outcome: 'ok',
          result: '1',
          note: 'x',
        },
      },
    ]);

    expect(state.noteCount).toBe(1);
    expect(state.batch!.results).toEqual({ c1: { outcome: 'ok', result: '1' } });
  });

  it('refuses a journal the approval turn cannot follow', () => {
    expect(() =>
      replay(sessionId, [
        ...parkedTwo,
        { seq: 6, occurredAt: AT, event: { type: 'TurnCompleted', reply: 'x' } },
      ]),
    ).toThrow(IllegalApprovalTransition);
    expect(() =>
      replay(sessionId, [
        ...parkedTwo,
        { seq: 6, occurredAt: AT, event: resolved('zz', 'approve_once') },
      ]),
    ).toThrow(/not pending/);
    expect(() => replay(sessionId, journal(started, message('a'), message('b')))).toThrow(
      IllegalApprovalTransition,
    );
  });
});
