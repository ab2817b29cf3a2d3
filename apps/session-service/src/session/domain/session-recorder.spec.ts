import { parseOutput } from '@tollgate/protocol';
import { conversation, sessionId } from '../../../../../libs/protocol/src/testing/message-fixtures';
import { MissingConversation, SessionRecorder } from './session-recorder';
import { initialSessionState, replay } from '@tollgate/session-read-model';

const NOW = '2024-05-01T12:30:00.000Z';
const text = (t: string) => ({ type: 'TextOutput', text: t, role: 'notice' }) as const;

function expectValid(output: unknown): void {
  const parsed = parseOutput(output);
  expect(parsed.ok ? 'valid' : parsed.detail).toBe('valid');
}

describe('SessionRecorder', () => {
  it('given a new session, gives events consecutive seqs and outputs ids <sessionId>:<seq>:<n>', () => {
    const recorder = new SessionRecorder(initialSessionState(sessionId), NOW);

    recorder.record({ type: 'SessionStarted', conversation });
    const failed = recorder.record({ type: 'TurnFailed', reason: 'r' }, [text('a'), text('b')]);

    expect(recorder.recorded.map((r) => r.seq)).toEqual([1, 2]);
    expect(failed.outputs).toEqual([
      {
        ...text('a'),
        v: 1,
        id: `${sessionId}:2:0`,
        sessionId,
        conversation,
        occurredAt: NOW,
        seq: 2,
      },
      {
        ...text('b'),
        v: 1,
        id: `${sessionId}:2:1`,
        sessionId,
        conversation,
        occurredAt: NOW,
        seq: 2,
      },
    ]);
    failed.outputs.forEach(expectValid);
    expect(recorder.current.version).toBe(2);
    expect(recorder.nextSeq).toBe(3);
  });

  it('given a journaled session, continues after its last seq', () => {
    const state = replay(sessionId, [
      { seq: 1, occurredAt: NOW, event: { type: 'SessionStarted', conversation } },
      { seq: 2, occurredAt: NOW, event: { type: 'TurnFailed', reason: 'r' } },
    ]);
    const recorder = new SessionRecorder(state, NOW);

    const recorded = recorder.record({ type: 'TurnFailed', reason: 'again' }, [text('c')]);

    expect(recorded.seq).toBe(3);
    expect(recorded.outputs[0].id).toBe(`${sessionId}:3:0`);
  });

  it('gives the outputs of SessionStarted the conversation it brings', () => {
    const recorder = new SessionRecorder(initialSessionState(sessionId), NOW);

    const started = recorder.record({ type: 'SessionStarted', conversation }, [text('hi')]);

    expect(started.outputs[0].conversation).toEqual(conversation);
  });

  it('refuses to build an output for a session without a conversation', () => {
    const recorder = new SessionRecorder(initialSessionState(sessionId), NOW);

    expect(() => recorder.record({ type: 'TurnFailed', reason: 'r' }, [text('x')])).toThrow(
      MissingConversation,
    );
  });

  it('records an unjournaled output at seq 0 with the command id, outside the events', () => {
    const recorder = new SessionRecorder(initialSessionState(sessionId), NOW);

    recorder.recordUnjournaled('1700.1:U1', conversation, {
      type: 'ToolInteractionRejected',
      callId: 'c1',
      sender: { id: 'U1' },
      reason: 'prompt_expired',
      text: 'gone',
    });

    expect(recorder.recorded).toEqual([]);
    expect(recorder.unjournaledOutputs).toMatchObject([
      { id: `${sessionId}:0:1700.1:U1`, seq: 0, conversation, occurredAt: NOW },
    ]);
    expectValid(recorder.unjournaledOutputs[0]);
    expect(recorder.current.version).toBe(0);
  });
});
