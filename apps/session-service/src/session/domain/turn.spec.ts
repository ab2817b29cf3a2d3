import { LIMITS } from '@tollgate/protocol';
import type { ModelClient, ModelReply, ModelRequest } from '../../model/model-client.port';
import { ScriptedModelClient } from '../../model/scripted-model.client';
import { defaultToolPolicy } from '../../tools/tool-policy';
import { builtInTools } from '../../tools/tool-registry';
import { MAX_MODEL_ROUNDS_PER_TURN } from './session-deps';
import { SessionRecorder } from './session-recorder';
import { initialSessionState } from '@tollgate/session-read-model';
import {
  eventTypes,
  eventsOf,
  executedCalls,
  outputKinds,
  outputsOf,
  replyOf,
  SessionGiven,
  sessionId,
} from './testing/session-given';
import { driveTurn } from '../drive-turn';
import { noToolGrants } from './tool-grants.port';

/** Wraps the scripted model and keeps every request, to see what the model was shown. */
class RecordingModel implements ModelClient {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly next: (request: ModelRequest) => Promise<ModelReply>) {}
  complete(request: ModelRequest): Promise<ModelReply> {
    this.requests.push(request);
    return this.next(request);
  }
}

const scripted = new ScriptedModelClient();

function sessionWith(model: ModelClient): SessionGiven {
  return new SessionGiven({
    model,
    tools: builtInTools(),
    policy: defaultToolPolicy(),
    grants: noToolGrants,
  });
}

describe('a turn driven by the shell (decideTurn and driveTurn)', () => {
  it('given a model that never stops calling tools, the turn fails after the round limit', async () => {
    let round = 0;
    const session = sessionWith(
      new RecordingModel(async () => {
        round += 1;
        return {
          content: '',
          toolCalls: [{ callId: `loop_${round}`, toolName: 'echo', arguments: '{"text":"x"}' }],
        };
      }),
    );

    const decision = await session.message('go');

    expect(executedCalls(session.journal)).toHaveLength(MAX_MODEL_ROUNDS_PER_TURN);
    expect(eventTypes(decision).at(-1)).toBe('TurnFailed');
    expect(outputKinds(decision.outputs)).toEqual(['TextOutput{notice}']);
    expect(decision.state.turn.phase).toBe('NoActive');
  });

  it('redrives from the persisted turn context with every result in batch order', async () => {
    const model = new RecordingModel((request) => scripted.complete(request));
    const session = sessionWith(model);
    await session.message('!write_note {"text":"x"}\n!echo {"text":"hi"}');
    await session.recover();

    await session.respond('call_2_1', 'approve_once');

    const last = model.requests.at(-1)!;
    expect(last.turnSeq).toBe(2);
    expect(last.messages).toEqual([
      { role: 'user', content: '!write_note {"text":"x"}\n!echo {"text":"hi"}' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { callId: 'call_2_1', toolName: 'write_note', arguments: '{"text":"x"}' },
          { callId: 'call_2_2', toolName: 'echo', arguments: '{"text":"hi"}' },
        ],
      },
      { role: 'tool', callId: 'call_2_1', content: '1' },
      { role: 'tool', callId: 'call_2_2', content: 'hi' },
    ]);
  });

  it('given a model that calls a gated tool again after a redrive, the new batch parks in the same turn', async () => {
    const model = new RecordingModel(async (request) => {
      const last = request.messages.at(-1);
      const redriven = request.messages.filter((m) => m.role === 'tool').length;
      if (last?.role === 'tool' && redriven === 1) {
        return {
          content: 'one more',
          toolCalls: [{ callId: 'again_1', toolName: 'write_note', arguments: '{"text":"y"}' }],
        };
      }
      return scripted.complete(request);
    });
    const session = sessionWith(model);
    await session.message('!write_note {"text":"x"}');

    const first = await session.respond('call_2_1', 'approve_once');

    expect(outputKinds(first.outputs)).toEqual([
      'ToolInteractionResolved{approve_once}',
      'ToolInteractionRequest{again_1}',
    ]);
    expect(first.state.turn).toMatchObject({ phase: 'WaitingForApprovals', turnSeq: 2 });
    expect(eventsOf(first, 'ToolBatchStarted').map((b) => b.batchId)).toEqual(['batch_8']);

    const second = await session.respond('again_1', 'approve_once');

    expect(replyOf(second)).toBe('write_note: 2');
    expect(second.state.turn.phase).toBe('NoActive');
    expect(session.notes).toEqual(['x', 'y']);
  });

  it('given a reply longer than a TextOutput may carry, the output is cut to the limit, the journal keeps it all', async () => {
    const session = new SessionGiven();
    const text = 'x'.repeat(LIMITS.text);

    const decision = await session.message(text);

    const [reply] = outputsOf(decision.outputs, 'TextOutput');
    expect(reply.text).toHaveLength(LIMITS.text);
    expect(reply.text.startsWith('You said: xxx')).toBe(true);
    expect(reply.text.endsWith('…')).toBe(true);
    expect(eventsOf(decision, 'TurnCompleted')[0].reply).toBe(`You said: ${text}`);
  });

  it('given a policy that denies a tool, the call is refused without running', async () => {
    const options = defaultToolPolicy().entryFor('echo')!.options;
    const session = new SessionGiven({
      model: scripted,
      tools: builtInTools(),
      policy: {
        apiEntryFor: () => undefined,
        entryFor: (name) => (name === 'echo' ? { mode: 'deny', options } : undefined),
      },
      grants: noToolGrants,
    });

    const decision = await session.message('!echo {"text":"hi"}');

    expect(eventsOf(decision, 'ToolCallRecorded')).toMatchObject([
      { callId: 'call_2_1', outcome: 'refused_by_policy', result: 'refused by policy' },
    ]);
    expect(executedCalls(session.journal)).toEqual([]);
    expect(replyOf(decision)).toBe('echo: refused by policy');
  });

  it('given no running turn, driving it asks the model nothing and records nothing', async () => {
    const model = new RecordingModel((request) => scripted.complete(request));
    const recorder = new SessionRecorder(
      initialSessionState(sessionId),
      '2024-05-01T12:00:00.000Z',
    );

    await driveTurn(recorder, {
      model,
      tools: builtInTools(),
      policy: defaultToolPolicy(),
      grants: noToolGrants,
    });

    expect(model.requests).toEqual([]);
    expect(recorder.recorded).toEqual([]);
  });
});
