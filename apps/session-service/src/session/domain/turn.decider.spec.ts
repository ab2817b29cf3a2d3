import { aResponse, aUserMessage } from '../../../../../libs/protocol/src/testing/message-fixtures';
import { decideResponse, decideUserMessage } from './session.decider';
import type { SessionRecorder } from './session-recorder';
import {
  eventsOf,
  eventTypes,
  outputKinds,
  REQUESTER,
  SessionGiven,
} from './testing/session-given';
import { decideTurn, type TurnEffect, type TurnInput } from './turn.decider';

/** The "when": the turn decider alone, on a recorder at the given state. No model, no tool. */
async function whenTheTurnIsDecided(given: SessionGiven, input?: TurnInput) {
  let effect: TurnEffect | undefined;
  const decision = await given.decide((recorder: SessionRecorder) => {
    effect = decideTurn(recorder, given.deps, input);
  });
  return { effect, decision };
}

/** A session parked on one gated write_note (call_2_1), decided by the real deciders. */
async function givenParkedOnWriteNote(): Promise<SessionGiven> {
  const given = new SessionGiven();
  await given.message('!write_note {"text":"x"}');
  expect(given.state.turn.phase).toBe('WaitingForApprovals');
  return given;
}

/** The last answer recorded and nothing after it: what a crash after `approval-resolved` leaves. */
async function givenAnsweredNotRedriven(): Promise<SessionGiven> {
  const given = await givenParkedOnWriteNote();
  await given.decide((recorder) => {
    decideResponse(
      recorder,
      aResponse({
        id: 'click-1',
        callId: 'call_2_1',
        optionKey: 'approve_once',
        sender: REQUESTER,
      }),
    );
  });
  expect(given.state.turn.phase).toBe('Redriving');
  return given;
}

describe('turn decider: what a turn in flight needs next (given/when/then, no model)', () => {
  it('D1 given the batch answered, when the turn is decided, then it asks to commit and read the batch context, recording nothing', async () => {
    const given = await givenAnsweredNotRedriven();

    const { effect, decision } = await whenTheTurnIsDecided(given);

    expect(effect).toEqual({
      type: 'ReadHistory',
      commitFirst: 'approval-resolved',
      purpose: 'redrive',
      throughSeq: given.state.batch?.seq,
      round: 0,
    });
    expect(decision.events).toEqual([]);
  });

  it('D1 given a message just received, when the turn is decided, then it asks to commit and read the history for the model', async () => {
    const given = new SessionGiven();
    await given.decide((recorder) => {
      decideUserMessage(recorder, aUserMessage({ id: 'msg-1', text: 'hello' }));
    });
    expect(given.state.turn.phase).toBe('Running');

    const { effect, decision } = await whenTheTurnIsDecided(given);

    expect(effect).toEqual({
      type: 'ReadHistory',
      commitFirst: 'model-calling',
      purpose: 'model',
      round: 0,
    });
    expect(decision.events).toEqual([]);
  });

  it('D1 given a tool that started and never recorded a result, when the turn is decided, then the batch is abandoned as interrupted and nothing runs', async () => {
    const given = await givenAnsweredNotRedriven();
    await given.decide((recorder) => {
      recorder.record({ type: 'ToolExecutionStarted', callId: 'call_2_1', toolName: 'write_note' });
    });

    const { effect, decision } = await whenTheTurnIsDecided(given);

    expect(effect).toBeUndefined();
    expect(eventTypes(decision)).toEqual(['ToolBatchAbandoned']);
    expect(eventsOf(decision, 'ToolBatchAbandoned')[0]).toMatchObject({
      reason: 'interrupted',
      results: [{ callId: 'call_2_1', result: 'interrupted: the action may not have completed' }],
    });
    expect(outputKinds(decision.outputs)).toEqual(['TextOutput{notice}']);
    expect(decision.state.turn.phase).toBe('NoActive');
  });

  it('D1 given a parked or an idle session, when the turn is decided, then it asks for nothing and records nothing', async () => {
    const parked = await givenParkedOnWriteNote();
    const idle = new SessionGiven();
    await idle.message('hello');

    for (const given of [parked, idle]) {
      const { effect, decision } = await whenTheTurnIsDecided(given);
      expect(effect).toBeUndefined();
      expect(decision.events).toEqual([]);
    }
  });
});
