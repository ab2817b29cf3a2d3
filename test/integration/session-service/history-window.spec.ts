import { deriveSessionId, Subjects } from '@tollgate/protocol';
import { SESSION_SERVICE_MIGRATIONS } from '@tollgate/session-read-model';
import { SessionStore } from '../../../apps/session-service/src/journal/session-store';
import type { SessionRecorder } from '../../../apps/session-service/src/session/domain/session-recorder';
import { historyOf } from '../../../apps/session-service/src/session/domain/provider-history';
import { freshConversation } from '../../support/commands';
import { migratedDataSource } from '../../support/database';

// S16: a model call is shown the session's last MODEL_HISTORY_TURNS turns, each whole from its
// user message, so its cost does not grow with the session's age and no tool result is shown
// without the call it answers.
describe('S16 — the history a model call is shown is bounded by turns', () => {
  const database = migratedDataSource('hwin', SESSION_SERVICE_MIGRATIONS);

  const storeShowing = (turns?: number) =>
    new SessionStore(database.current(), new Subjects('hwin'), `outbox_${database.schema.schema}`, {
      historyTurns: turns,
    });

  /** Records turn `n`: a message, a tool call and its result, the reply. */
  const turn = (recorder: SessionRecorder, n: number) => {
    recorder.record({
      type: 'UserMessageReceived',
      commandId: `c${n}`,
      sender: { id: 'U1' },
      text: `message ${n}`,
      principal: 'user',
    });
    const call = { callId: `call_${n}`, toolName: 'echo', arguments: '{}' };
    recorder.record({
      type: 'ToolBatchStarted',
      batchId: `batch_${n}`,
      content: `calling ${n}`,
      toolCalls: [call],
    });
    recorder.record({
      type: 'ToolCallRecorded',
      callId: call.callId,
      toolName: 'echo',
      outcome: 'ok',
      result: `result ${n}`,
    });
    recorder.record({ type: 'TurnCompleted', reply: `reply ${n}` }, [
      { type: 'TextOutput', text: `reply ${n}`, role: 'assistant' },
    ]);
  };
  const shownFor = (n: number) => [
    { role: 'user', content: `message ${n}` },
    {
      role: 'assistant',
      content: `calling ${n}`,
      toolCalls: [{ callId: `call_${n}`, toolName: 'echo', arguments: '{}' }],
    },
    { role: 'tool', callId: `call_${n}`, content: `result ${n}` },
    { role: 'assistant', content: `reply ${n}` },
  ];

  /** A session of five turns, one decision each; answers its id and each turn's last seq. */
  async function fiveTurns(store: SessionStore): Promise<{ sessionId: string; ends: number[] }> {
    const conversation = freshConversation('slack');
    const sessionId = deriveSessionId(conversation);
    const ends: number[] = [];
    for (let n = 1; n <= 5; n += 1) {
      // A command id is settled once across all sessions (the ledger): each run has its own.
      await store.decide(sessionId, `${sessionId}-c${n}`, (recorder) => {
        if (n === 1) recorder.record({ type: 'SessionStarted', conversation });
        turn(recorder, n);
        ends.push(recorder.nextSeq - 1);
      });
    }
    return { sessionId, ends };
  }

  it('S16 a model call of a long session reads only its last turns, each from its user message', async () => {
    const store = storeShowing(2);
    const { sessionId, ends } = await fiveTurns(store);

    const all = historyOf(await store.historySource(sessionId)(1_000_000));
    expect(all).toEqual([...shownFor(4), ...shownFor(5)]);
    // Through the middle of turn 4 (its tool result): turns 3 and 4 so far, never a result alone.
    const midTurn4 = historyOf(await store.historySource(sessionId)(ends[3] - 1));
    expect(midTurn4).toEqual([...shownFor(3), ...shownFor(4).slice(0, 3)]);

    // What a decision's model call is shown goes through the same window (DecisionRun's read).
    let seen: unknown[] = [];
    await store.decide(sessionId, `${sessionId}-c6`, async (recorder) => {
      seen = await recorder.history();
    });
    expect(seen).toEqual([...shownFor(4), ...shownFor(5)]);
  });

  it('S16 a session with fewer turns than the window is shown whole (the default window is 100 turns)', async () => {
    const store = storeShowing();
    const { sessionId } = await fiveTurns(store);
    const all = historyOf(await store.historySource(sessionId)(1_000_000));
    expect(all).toEqual([1, 2, 3, 4, 5].flatMap(shownFor));
  });
});
