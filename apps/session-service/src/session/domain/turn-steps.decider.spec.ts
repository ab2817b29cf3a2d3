import { aResponse, aUserMessage } from '../../../../../libs/protocol/src/testing/message-fixtures';
import type { ProviderMessage, ToolCall } from '@tollgate/session-read-model';
import { decideResponse, decideUserMessage } from './session.decider';
import type { SessionRecorder } from './session-recorder';
import { MAX_MODEL_ROUNDS_PER_TURN } from './session-deps';
import {
  eventsOf,
  eventTypes,
  outputKinds,
  REQUESTER,
  SessionGiven,
} from './testing/session-given';
import { decideTurn, type TurnEffect, type TurnInput } from './turn.decider';

type EffectOf<T extends TurnEffect['type']> = Extract<TurnEffect, { type: T }>;

/** The "when": one step of the turn decider, fed what the shell would have got. No I/O. */
async function when(given: SessionGiven, input?: TurnInput) {
  let effect: TurnEffect | undefined;
  const decision = await given.decide((recorder: SessionRecorder) => {
    effect = decideTurn(recorder, given.deps, input);
  });
  return { effect, decision };
}

function expectEffect<T extends TurnEffect['type']>(
  effect: TurnEffect | undefined,
  type: T,
): EffectOf<T> {
  expect(effect?.type).toBe(type);
  return effect as EffectOf<T>;
}

const call = (callId: string, toolName: string, args: string): ToolCall => ({
  callId,
  toolName,
  arguments: args,
});

/** A message received and its history read: the step that asks the model. */
async function givenModelAsked(text = 'hello') {
  const given = new SessionGiven();
  await given.decide((recorder) =>
    decideUserMessage(recorder, aUserMessage({ id: 'msg-1', text })),
  );
  const read = expectEffect((await when(given)).effect, 'ReadHistory');
  const { effect } = await when(given, {
    type: 'HistoryRead',
    effect: read,
    messages: given.history,
  });
  return { given, callModel: expectEffect(effect, 'CallModel') };
}

/** The model answered with these calls. */
async function givenModelCalled(toolCalls: ToolCall[]) {
  const { given, callModel } = await givenModelAsked();
  const replied = await when(given, {
    type: 'ModelReplied',
    effect: callModel,
    reply: { content: 'on it', toolCalls },
  });
  return { given, ...replied };
}

describe('D1 turn steps: each effect’s result in, events and the next effect out (no model, no tool)', () => {
  it('D1 given the history read for a model round, when decided, then the model is asked with it and the session’s tools, nothing recorded', async () => {
    const { given, callModel } = await givenModelAsked('hi');

    expect(callModel.commitFirst).toBeUndefined();
    expect(callModel.request.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(callModel.request.turnSeq).toBe(2);
    expect(callModel.request.tools.map((t) => t.name)).toEqual(
      given.deps.tools.list().map((t) => t.name),
    );
  });

  it('D1 given the model replied with text, when decided, then the turn completes with the reply and nothing more is asked', async () => {
    const { given, callModel } = await givenModelAsked();

    const { effect, decision } = await when(given, {
      type: 'ModelReplied',
      effect: callModel,
      reply: { content: 'done', toolCalls: [] },
    });

    expect(effect).toBeUndefined();
    expect(eventTypes(decision)).toEqual(['TurnCompleted']);
    expect(outputKinds(decision.outputs)).toEqual(['TextOutput{assistant}']);
  });

  it('D1 given the model failed, when decided, then the turn fails with a notice', async () => {
    const { given, callModel } = await givenModelAsked();

    const { effect, decision } = await when(given, {
      type: 'ModelFailed',
      effect: callModel,
      reason: 'timeout',
    });

    expect(effect).toBeUndefined();
    expect(eventsOf(decision, 'TurnFailed')[0].reason).toBe('the model did not answer: timeout');
    expect(outputKinds(decision.outputs)).toEqual(['TextOutput{notice}']);
  });

  it('D1 given the model called an auto tool, when decided, then the batch and the start are recorded and the tool is to run after a tool-starting commit', async () => {
    const { effect, decision } = await givenModelCalled([call('c1', 'echo', '{"text":"x"}')]);

    expect(eventTypes(decision)).toEqual(['ToolBatchStarted', 'ToolExecutionStarted']);
    const run = expectEffect(effect, 'RunTool');
    expect(run).toMatchObject({
      commitFirst: 'tool-starting',
      call: { callId: 'c1' },
      arguments: { text: 'x' },
    });
  });

  it('D1 given the tool ran, when decided, then its result is recorded and the next model round reads the history', async () => {
    const { given, effect } = await givenModelCalled([call('c1', 'echo', '{"text":"x"}')]);

    const next = await when(given, {
      type: 'ToolRan',
      effect: expectEffect(effect, 'RunTool'),
      outcome: { result: 'x' },
    });

    expect(eventsOf(next.decision, 'ToolCallRecorded')).toMatchObject([
      { callId: 'c1', outcome: 'ok', result: 'x' },
    ]);
    expect(next.effect).toEqual({
      type: 'ReadHistory',
      commitFirst: 'model-calling',
      purpose: 'model',
      round: 1,
    });
  });

  it('D1 given the tool failed, when decided, then the error is its result and the turn goes on', async () => {
    const { given, effect } = await givenModelCalled([call('c1', 'echo', '[]')]);

    const next = await when(given, {
      type: 'ToolFailed',
      effect: expectEffect(effect, 'RunTool'),
      message: 'arguments are not a JSON object',
    });

    expect(eventsOf(next.decision, 'ToolCallRecorded')).toMatchObject([
      { callId: 'c1', outcome: 'error', result: 'error: arguments are not a JSON object' },
    ]);
    expect(next.effect?.type).toBe('ReadHistory');
  });

  it('D1 given the model called a gated tool, when decided, then the requester’s grants are to be read before anything is asked', async () => {
    const { effect, decision } = await givenModelCalled([call('c1', 'write_note', '{"text":"x"}')]);

    expect(eventTypes(decision)).toEqual(['ToolBatchStarted']);
    expect(expectEffect(effect, 'ReadGrant')).toMatchObject({
      call: { callId: 'c1' },
      personId: REQUESTER.id,
      cursor: { kind: 'batch', next: 0, gated: [] },
    });
  });

  it('D1 given no grant covers the gated call, when decided, then it is requested and the batch parks', async () => {
    const { given, effect } = await givenModelCalled([call('c1', 'write_note', '{"text":"x"}')]);

    const next = await when(given, {
      type: 'GrantRead',
      effect: expectEffect(effect, 'ReadGrant'),
      found: {},
    });

    expect(next.effect).toBeUndefined();
    expect(eventTypes(next.decision)).toEqual(['ToolApprovalRequested']);
    expect(next.decision.state.turn.phase).toBe('WaitingForApprovals');
  });

  it('D1 given an "Always allow" covers the gated call, when decided, then it is journaled as granted and runs', async () => {
    const { given, effect } = await givenModelCalled([call('c1', 'write_note', '{"text":"x"}')]);

    const next = await when(given, {
      type: 'GrantRead',
      effect: expectEffect(effect, 'ReadGrant'),
      found: { always: { grantedAt: '2024-04-01T00:00:00.000Z' } },
    });

    expect(eventTypes(next.decision)).toEqual(['ToolCallGranted', 'ToolExecutionStarted']);
    expect(expectEffect(next.effect, 'RunTool').call.callId).toBe('c1');
  });

  it('D1 given a limited grant, when decided, then a use is to be taken first; none left, the call is requested', async () => {
    const { given, effect } = await givenModelCalled([call('c1', 'write_note', '{"text":"x"}')]);
    const limited = await when(given, {
      type: 'GrantRead',
      effect: expectEffect(effect, 'ReadGrant'),
      found: { always: { grantedAt: '2024-04-01T00:00:00.000Z', usesLeft: 1 } },
    });
    const take = expectEffect(limited.effect, 'TakeGrantUse');
    expect(limited.decision.events).toEqual([]);
    expect(take.claim).toMatchObject({ personId: REQUESTER.id, toolName: 'write_note' });

    const next = await when(given, { type: 'GrantUseTaken', effect: take, usesLeft: undefined });

    expect(next.effect).toBeUndefined();
    expect(eventTypes(next.decision)).toEqual(['ToolApprovalRequested']);
  });

  it('D1 given an answered batch whose context was read, when decided, then the approved call starts and, once run, the model sees the context and the results', async () => {
    const given = new SessionGiven();
    await given.decide((recorder) =>
      decideUserMessage(recorder, aUserMessage({ id: 'msg-1', text: '!write_note {"text":"x"}' })),
    );
    const read = expectEffect((await when(given)).effect, 'ReadHistory');
    const asked = await when(given, { type: 'HistoryRead', effect: read, messages: given.history });
    const toolCalls = [call('c1', 'write_note', '{"text":"x"}')];
    const gated = await when(given, {
      type: 'ModelReplied',
      effect: expectEffect(asked.effect, 'CallModel'),
      reply: { content: '', toolCalls },
    });
    await when(given, {
      type: 'GrantRead',
      effect: expectEffect(gated.effect, 'ReadGrant'),
      found: {},
    });
    await given.decide((recorder) =>
      decideResponse(
        recorder,
        aResponse({ id: 'click-1', callId: 'c1', optionKey: 'approve_once', sender: REQUESTER }),
      ),
    );
    const readContext = expectEffect((await when(given)).effect, 'ReadHistory');
    const context: ProviderMessage[] = given.history.slice(0, 2);
    expect(context.at(-1)).toMatchObject({ role: 'assistant', toolCalls });

    const started = await when(given, {
      type: 'HistoryRead',
      effect: readContext,
      messages: context,
    });

    expect(eventTypes(started.decision)).toEqual(['ToolExecutionStarted']);
    const run = expectEffect(started.effect, 'RunTool');
    expect(run.cursor).toEqual({ kind: 'redrive', context });

    const ran = await when(given, { type: 'ToolRan', effect: run, outcome: { result: '1' } });

    const callModel = expectEffect(ran.effect, 'CallModel');
    expect(callModel.commitFirst).toBe('model-calling');
    expect(callModel.request.messages).toEqual([
      ...context,
      { role: 'tool', callId: 'c1', content: '1' },
    ]);
  });

  it('D1 given a batch’s context that cannot be restored, when decided, then the batch expires and nothing runs', async () => {
    const given = new SessionGiven();
    await given.message('!write_note {"text":"x"}');
    await given.decide((recorder) =>
      decideResponse(
        recorder,
        aResponse({
          id: 'click-1',
          callId: 'call_2_1',
          optionKey: 'approve_once',
          sender: REQUESTER,
        }),
      ),
    );
    const readContext = expectEffect((await when(given)).effect, 'ReadHistory');

    const { effect, decision } = await when(given, {
      type: 'HistoryUnrestorable',
      effect: readContext,
      reason: 'an event of an unknown version',
    });

    expect(effect).toBeUndefined();
    expect(eventsOf(decision, 'ToolBatchAbandoned')[0]).toMatchObject({ reason: 'expired' });
    expect(eventTypes(decision)).not.toContain('ToolExecutionStarted');
  });

  it('D1 given the last allowed model round ran its tools, when decided, then the turn stops instead of asking again', async () => {
    const { given, effect } = await givenModelCalled([call('c1', 'echo', '{"text":"x"}')]);
    const run = expectEffect(effect, 'RunTool');
    const lastRound = {
      ...run,
      cursor: { ...run.cursor, round: MAX_MODEL_ROUNDS_PER_TURN - 1 },
    } as EffectOf<'RunTool'>;

    const next = await when(given, {
      type: 'ToolRan',
      effect: lastRound,
      outcome: { result: 'x' },
    });

    expect(next.effect).toBeUndefined();
    expect(eventTypes(next.decision)).toEqual(['ToolCallRecorded', 'TurnFailed']);
  });
});
