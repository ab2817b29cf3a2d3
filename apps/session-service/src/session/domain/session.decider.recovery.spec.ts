import { sessionId } from '../../../../../libs/protocol/src/testing/message-fixtures';
import { pendingCalls, replay } from '@tollgate/session-read-model';
import { decideRecovery } from './session.decider';
import { SessionRecorder } from './session-recorder';
import {
  eventTypes,
  executedCalls,
  idAt,
  outputKinds,
  outputsOf,
  replyOf,
  SessionGiven,
} from './testing/session-given';

/** Given two gated write_note siblings (call_2_1 at seq 4, call_2_2 at seq 5), both pending. */
async function givenTwoGatedSiblings(): Promise<SessionGiven> {
  const session = new SessionGiven();
  await session.message('!write_note {"text":"a"}\n!write_note {"text":"b"}');
  return session;
}

describe('decideRecovery (S2, S3)', () => {
  it('S2 given a parked session, it journals SessionRecovered and refreshes every pending call with its original request', async () => {
    const session = await givenTwoGatedSiblings();
    const [first, second] = outputsOf(session.published, 'ToolInteractionRequest');

    const decision = await session.recover();

    expect(eventTypes(decision)).toEqual(['SessionRecovered']);
    expect(decision.events[0].event).toEqual({
      type: 'SessionRecovered',
      pendingCallIds: ['call_2_1', 'call_2_2'],
    });
    expect(decision.outputs).toMatchObject([
      { type: 'ToolInteractionUpdate', status: 'RefreshedAfterRestart', callId: 'call_2_1' },
      { type: 'ToolInteractionUpdate', status: 'RefreshedAfterRestart', callId: 'call_2_2' },
    ]);
    const refreshes = outputsOf(decision.outputs, 'ToolInteractionUpdate');
    expect(refreshes.map((u) => [u.id, u.seq])).toEqual([
      [idAt(6, 0), 6],
      [idAt(6, 1), 6],
    ]);
    // As first published: its own id and seq, so a binding with no record can re-post it.
    expect(refreshes.map((u) => u.request)).toEqual([first, second]);
    expect(first).toMatchObject({ id: idAt(4, 0), seq: 4 });
    expect(refreshes[0].reason).toMatch(/restart/);
    expect(refreshes[0].reason).toMatch(/still valid/);
    expect(decision.state.turn.phase).toBe('RecoveredWaitingForApprovals');
    expect(session.state.turn.phase).toBe('RecoveredWaitingForApprovals');
  });

  it('S2 refreshes only the calls still pending', async () => {
    const session = await givenTwoGatedSiblings();
    await session.respond('call_2_1', 'approve_once');

    const decision = await session.recover();

    expect(outputKinds(decision.outputs)).toEqual(['ToolInteractionUpdate{RefreshedAfterRestart}']);
    expect(outputsOf(decision.outputs, 'ToolInteractionUpdate')[0].callId).toBe('call_2_2');
  });

  it('S3 recovering again refreshes again with a newer seq, the request unchanged', async () => {
    const session = await givenTwoGatedSiblings();
    const once = await session.recover();

    const twice = await session.recover();

    const [a] = outputsOf(once.outputs, 'ToolInteractionUpdate');
    const [b] = outputsOf(twice.outputs, 'ToolInteractionUpdate');
    expect(b.seq).toBeGreaterThan(a.seq);
    expect(b.id).not.toBe(a.id);
    expect(b.request).toEqual(a.request);
    expect(session.state.turn).toMatchObject({
      phase: 'RecoveredWaitingForApprovals',
      recoveries: 2,
    });
  });

  it('S2 a click after recovery redrives the parked call under the original turn context and completes', async () => {
    const session = new SessionGiven();
    await session.message('!write_note {"text":"x"}\n!echo {"text":"hi"}');
    await session.recover();
    await session.recover();

    const decision = await session.respond('call_2_1', 'approve_once');

    expect(eventTypes(decision)).toEqual([
      'ToolApprovalResolved',
      'ToolExecutionStarted',
      'ToolCallRecorded',
      'TurnCompleted',
    ]);
    expect(replyOf(decision)).toBe('write_note: 1\necho: hi');
    expect(decision.state.turn.phase).toBe('NoActive');
    expect(executedCalls(session.journal)).toEqual(['call_2_2', 'call_2_1']);
  });

  it('given a session that is not parked, recovery records nothing', async () => {
    const session = new SessionGiven();
    await session.message('!write_note {"text":"x"}');
    await session.respond('call_2_1', 'deny');

    const decision = await session.recover();

    expect(decision.events).toEqual([]);
    expect(decision.outputs).toEqual([]);
    expect(decision.unjournaled).toEqual([]);
  });

  it('tells the caller whether the session needed recovering', async () => {
    const parked = await givenTwoGatedSiblings();
    const idle = new SessionGiven();
    await idle.message('hello');
    const at = '2024-05-02T00:00:00.000Z';

    expect(decideRecovery(new SessionRecorder(replay(sessionId, parked.journal), at))).toBe(true);
    expect(decideRecovery(new SessionRecorder(replay(sessionId, idle.journal), at))).toBe(false);
  });

  it('given no session at all, recovery records nothing', async () => {
    const decision = await new SessionGiven().recover();

    expect(decision.events).toEqual([]);
  });
});

describe('decideJoin', () => {
  it('given a recovered session, it re-announces every pending call with a newer seq', async () => {
    const session = await givenTwoGatedSiblings();
    const recovered = await session.recover();

    const decision = await session.join();

    expect(eventTypes(decision)).toEqual(['PendingApprovalsReannounced']);
    expect(decision.events[0].event).toEqual({
      type: 'PendingApprovalsReannounced',
      pendingCallIds: ['call_2_1', 'call_2_2'],
    });
    expect(outputKinds(decision.outputs)).toEqual([
      'ToolInteractionUpdate{RefreshedAfterRestart}',
      'ToolInteractionUpdate{RefreshedAfterRestart}',
    ]);
    const before = outputsOf(recovered.outputs, 'ToolInteractionUpdate');
    const after = outputsOf(decision.outputs, 'ToolInteractionUpdate');
    expect(after.map((u) => u.seq)).toEqual([7, 7]);
    expect(after.map((u) => u.request)).toEqual(before.map((u) => u.request));
    expect(session.state.turn.phase).toBe('RecoveredWaitingForApprovals');
    expect(pendingCalls(session.state.turn)).toHaveLength(2);
  });

  it('given a parked session that was never recovered, it does nothing', async () => {
    const session = await givenTwoGatedSiblings();

    const decision = await session.join();

    expect(decision.events).toEqual([]);
    expect(decision.outputs).toEqual([]);
    expect(decision.unjournaled).toEqual([]);
  });

  it('given a recovered session whose batch was then answered, it does nothing', async () => {
    const session = await givenTwoGatedSiblings();
    await session.recover();
    await session.respond('call_2_1', 'approve_once');
    await session.respond('call_2_2', 'approve_once');

    const decision = await session.join();

    expect(decision.events).toEqual([]);
  });

  it('given no session, it does nothing', async () => {
    const decision = await new SessionGiven().join();

    expect(decision.events).toEqual([]);
    expect(decision.unjournaled).toEqual([]);
  });
});
