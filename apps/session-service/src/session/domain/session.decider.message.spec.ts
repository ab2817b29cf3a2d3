import { STANDARD_OPTIONS } from '@tollgate/protocol';
import { conversation } from '../../../../../libs/protocol/src/testing/message-fixtures';
import { pendingCalls } from '@tollgate/session-read-model';
import {
  eventTypes,
  eventsOf,
  executedCalls,
  idAt,
  outputKinds,
  outputsOf,
  replyOf,
  REQUESTER,
  SessionGiven,
  sessionId,
} from './testing/session-given';

const S1_MESSAGE = '!write_note {"text":"x"}\n!echo {"text":"hi"}';

describe('decideUserMessage with the scripted model (docs/protocol.md §6)', () => {
  it('given a new session, when plain text arrives, then it starts the session and answers', async () => {
    const session = new SessionGiven();

    const decision = await session.message('hello');

    expect(eventTypes(decision)).toEqual([
      'SessionStarted',
      'UserMessageReceived',
      'TurnCompleted',
    ]);
    expect(decision.events[0].event).toEqual({ type: 'SessionStarted', conversation });
    expect(decision.events[1].event).toEqual({
      type: 'UserMessageReceived',
      commandId: 'msg-1',
      sender: REQUESTER,
      text: 'hello',
      principal: 'user',
    });
    expect(decision.outputs).toEqual([
      {
        type: 'TextOutput',
        v: 1,
        id: `${sessionId}:3:0`,
        sessionId,
        conversation,
        occurredAt: decision.events[2].occurredAt,
        seq: 3,
        text: 'You said: hello',
        role: 'assistant',
      },
    ]);
    expect(decision.unjournaled).toEqual([]);
    expect(decision.state.turn).toEqual({ phase: 'NoActive' });
  });

  it('given a finished turn, when another message arrives, then no second SessionStarted', async () => {
    const session = new SessionGiven();
    await session.message('hello');

    const decision = await session.message('again');

    expect(eventTypes(decision)).toEqual(['UserMessageReceived', 'TurnCompleted']);
    expect(decision.events.map((e) => e.seq)).toEqual([4, 5]);
    expect(replyOf(decision)).toBe('You said: again');
  });

  it('when `!echo {"text":"hi"}` arrives, then echo runs once and the reply is `echo: hi`', async () => {
    const session = new SessionGiven();

    const decision = await session.message('!echo {"text":"hi"}');

    expect(eventTypes(decision)).toEqual([
      'SessionStarted',
      'UserMessageReceived',
      'ToolBatchStarted',
      'ToolExecutionStarted',
      'ToolCallRecorded',
      'TurnCompleted',
    ]);
    expect(eventsOf(decision, 'ToolCallRecorded')).toEqual([
      {
        type: 'ToolCallRecorded',
        callId: 'call_2_1',
        toolName: 'echo',
        outcome: 'ok',
        result: 'hi',
      },
    ]);
    expect(outputKinds(decision.outputs)).toEqual(['TextOutput{assistant}']);
    expect(replyOf(decision)).toBe('echo: hi');
    expect(decision.state.turn.phase).toBe('NoActive');
  });

  it('given a line whose JSON does not parse, then nothing runs and the reply says so', async () => {
    const session = new SessionGiven();

    const decision = await session.message('!echo {"text":');

    expect(eventTypes(decision)).toEqual([
      'SessionStarted',
      'UserMessageReceived',
      'TurnCompleted',
    ]);
    expect(replyOf(decision)).toBe('cannot parse arguments for echo');
  });

  it('given a multi-line batch, then call ids are call_<seq of UserMessageReceived>_<i>', async () => {
    const session = new SessionGiven();
    await session.message('hello');

    const decision = await session.message('!echo {"text":"a"}\n!echo {"text":"b"}\n!nope {}');

    const received = decision.events.find((e) => e.event.type === 'UserMessageReceived')!;
    expect(received.seq).toBe(4);
    expect(eventsOf(decision, 'ToolBatchStarted')[0].toolCalls.map((c) => c.callId)).toEqual([
      'call_4_1',
      'call_4_2',
      'call_4_3',
    ]);
    expect(replyOf(decision)).toBe('echo: a\necho: b\nnope: unknown tool');
  });

  it('given an unknown tool, then it is recorded as `unknown tool` and never started', async () => {
    const session = new SessionGiven();

    const decision = await session.message('!nope {"a":1}');

    expect(eventsOf(decision, 'ToolCallRecorded')).toEqual([
      {
        type: 'ToolCallRecorded',
        callId: 'call_2_1',
        toolName: 'nope',
        outcome: 'unknown_tool',
        result: 'unknown tool',
      },
    ]);
    expect(executedCalls(session.journal)).toEqual([]);
    expect(replyOf(decision)).toBe('nope: unknown tool');
  });

  it('given a tool that refuses its arguments, then the error is its result', async () => {
    const session = new SessionGiven();

    const decision = await session.message('!echo {"words":"hi"}');

    expect(eventsOf(decision, 'ToolCallRecorded')).toMatchObject([
      { callId: 'call_2_1', outcome: 'error', result: 'error: echo needs a string `text`' },
    ]);
    expect(replyOf(decision)).toBe('echo: error: echo needs a string `text`');
  });
});

describe('S1 a gated call parks the batch', () => {
  it('S1 emits one request, runs the ungated sibling, parks, and never starts the gated call', async () => {
    const session = new SessionGiven();

    const decision = await session.message(S1_MESSAGE);

    expect(eventTypes(decision)).toEqual([
      'SessionStarted',
      'UserMessageReceived',
      'ToolBatchStarted',
      'ToolExecutionStarted',
      'ToolCallRecorded',
      'ToolApprovalRequested',
    ]);
    expect(eventsOf(decision, 'ToolExecutionStarted')).toEqual([
      { type: 'ToolExecutionStarted', callId: 'call_2_2', toolName: 'echo' },
    ]);
    expect(eventsOf(decision, 'ToolCallRecorded')).toMatchObject([
      { callId: 'call_2_2', toolName: 'echo', outcome: 'ok', result: 'hi' },
    ]);
    expect(decision.outputs).toEqual([
      {
        type: 'ToolInteractionRequest',
        v: 1,
        id: idAt(6, 0),
        sessionId,
        conversation,
        occurredAt: decision.events[5].occurredAt,
        seq: 6,
        callId: 'call_2_1',
        batchId: 'batch_3',
        toolName: 'write_note',
        // A4: rendered from the tool and its arguments (prompt-text.renderer.spec.ts).
        displayText: expect.stringMatching(/^Tool: write_note\nArguments:\n• text: x\n/),
        requester: REQUESTER,
        principal: 'user',
        options: [
          STANDARD_OPTIONS.approve_once,
          STANDARD_OPTIONS.approve_session,
          STANDARD_OPTIONS.approve_always,
          STANDARD_OPTIONS.deny,
        ],
      },
    ]);
    expect(decision.state.turn.phase).toBe('WaitingForApprovals');
    expect(executedCalls(session.journal)).toEqual(['call_2_2']);
  });

  it('S1 the journaled request event carries the request as published and the turn context', async () => {
    const session = new SessionGiven();

    const decision = await session.message(S1_MESSAGE);

    const [requested] = eventsOf(decision, 'ToolApprovalRequested');
    expect(requested).toMatchObject({
      batchId: 'batch_3',
      callId: 'call_2_1',
      toolName: 'write_note',
      requester: REQUESTER,
      principal: 'user',
      request: decision.outputs[0],
    });
    // S16: the context is the journal up to the batch, never copied into each request.
    expect(requested).not.toHaveProperty('turnContext');
  });

  it('S1 given the parked journal, the pending-calls query lists the gated call only', async () => {
    const session = new SessionGiven();
    await session.message(S1_MESSAGE);

    const state = session.state;

    expect(state.turn.phase).toBe('WaitingForApprovals');
    expect(pendingCalls(state.turn)).toEqual([
      { callId: 'call_2_1', toolName: 'write_note', requestedSeq: 6 },
    ]);
  });

  it('S1 two gated calls in one batch get one request each, both pending', async () => {
    const session = new SessionGiven();

    const decision = await session.message('!write_note {"text":"a"}\n!write_note {"text":"b"}');

    expect(outputKinds(decision.outputs)).toEqual([
      'ToolInteractionRequest{call_2_1}',
      'ToolInteractionRequest{call_2_2}',
    ]);
    expect(decision.outputs.map((o) => o.id)).toEqual([idAt(4, 0), idAt(5, 0)]);
    expect(pendingCalls(session.state.turn).map((p) => p.callId)).toEqual(['call_2_1', 'call_2_2']);
    expect(executedCalls(session.journal)).toEqual([]);
  });

  it('given an automation message, then the request says so', async () => {
    const session = new SessionGiven();

    const decision = await session.message('!write_note {"text":"x"}', {
      principal: 'automation',
    });

    expect(outputsOf(decision.outputs, 'ToolInteractionRequest')).toMatchObject([
      { principal: 'automation', requester: REQUESTER },
    ]);
  });
});

describe('output ids and seqs', () => {
  it('every journaled output id is <sessionId>:<seq>:<n> of its event, seqs strictly increase', async () => {
    const session = new SessionGiven();
    await session.message('!write_note {"text":"a"}\n!write_note {"text":"b"}');
    await session.respond('call_2_1', 'approve_once');
    await session.recover();
    await session.message('hello');
    await session.respond('call_2_2', 'approve_once');

    const seqs = session.journal.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const journaledOutputs = session.published.filter((o) => o.seq > 0);
    for (const output of journaledOutputs) {
      const n = journaledOutputs.filter((o) => o.seq === output.seq).indexOf(output);
      expect(output.id).toBe(idAt(output.seq, n));
    }
    // Updates refer to the prompt by the seq they were caused at; a binding drops any not newer.
    const outputSeqs = journaledOutputs.map((o) => o.seq);
    expect(outputSeqs).toEqual([...outputSeqs].sort((a, b) => a - b));
    expect(new Set(session.published.map((o) => o.id)).size).toBe(session.published.length);
  });
});
