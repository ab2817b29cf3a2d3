import { STANDARD_OPTIONS } from '@tollgate/protocol';
import { conversation } from '../../../../../libs/protocol/src/testing/message-fixtures';
import { ScriptedModelClient } from '../../model/scripted-model.client';
import { builtInTools } from '../../tools/tool-registry';
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
  SOMEONE_ELSE,
} from './testing/session-given';
import { noToolGrants } from './tool-grants.port';

/** Given S1: write_note (call_2_1) parked behind its prompt, its echo sibling (call_2_2) done. */
async function givenS1Parked(): Promise<SessionGiven> {
  const session = new SessionGiven();
  await session.message('!write_note {"text":"x"}\n!echo {"text":"hi"}');
  return session;
}

/** Given S6: two gated write_note siblings, call_2_1 and call_2_2, both pending. */
async function givenTwoGatedSiblings(): Promise<SessionGiven> {
  const session = new SessionGiven();
  await session.message('!write_note {"text":"a"}\n!write_note {"text":"b"}');
  return session;
}

describe('decideResponse: an accepted answer', () => {
  it('given S1 parked, when the requester approves, then it resolves, runs write_note and replies in batch order', async () => {
    const session = await givenS1Parked();

    const decision = await session.respond('call_2_1', 'approve_once');

    expect(eventTypes(decision)).toEqual([
      'ToolApprovalResolved',
      'ToolExecutionStarted',
      'ToolCallRecorded',
      'TurnCompleted',
    ]);
    expect(decision.events[0].event).toEqual({
      type: 'ToolApprovalResolved',
      commandId: 'click-2',
      callId: 'call_2_1',
      optionKey: 'approve_once',
      label: 'Approve once',
      approved: true,
      resolvedBy: REQUESTER,
      via: 'click',
    });
    expect(decision.outputs).toEqual([
      {
        type: 'ToolInteractionResolved',
        v: 1,
        id: idAt(7, 0),
        sessionId,
        conversation,
        occurredAt: decision.events[0].occurredAt,
        seq: 7,
        callId: 'call_2_1',
        optionKey: 'approve_once',
        label: 'Approve once',
        resolvedBy: REQUESTER,
      },
      expect.objectContaining({ type: 'TextOutput', id: idAt(10, 0), seq: 10 }),
    ]);
    expect(eventsOf(decision, 'ToolCallRecorded')).toEqual([
      {
        type: 'ToolCallRecorded',
        callId: 'call_2_1',
        toolName: 'write_note',
        outcome: 'ok',
        result: '1',
        note: 'x',
      },
    ]);
    // Batch order, although echo ran first.
    expect(replyOf(decision)).toBe('write_note: 1\necho: hi');
    expect(decision.state.turn).toEqual({ phase: 'NoActive' });
    expect(session.notes).toEqual(['x']);
    expect(executedCalls(session.journal)).toEqual(['call_2_2', 'call_2_1']);
  });

  it('given S1 parked, when the requester denies, then write_note is denied and never executed', async () => {
    const session = await givenS1Parked();

    const decision = await session.respond('call_2_1', 'deny');

    expect(eventTypes(decision)).toEqual([
      'ToolApprovalResolved',
      'ToolCallRecorded',
      'TurnCompleted',
    ]);
    expect(outputsOf(decision.outputs, 'ToolInteractionResolved')).toMatchObject([
      { callId: 'call_2_1', optionKey: 'deny', label: 'Deny', resolvedBy: REQUESTER },
    ]);
    expect(eventsOf(decision, 'ToolApprovalResolved')).toMatchObject([{ approved: false }]);
    expect(eventsOf(decision, 'ToolCallRecorded')).toMatchObject([
      { callId: 'call_2_1', outcome: 'denied', result: 'denied' },
    ]);
    expect(replyOf(decision)).toBe('write_note: denied\necho: hi');
    expect(executedCalls(session.journal)).toEqual(['call_2_2']);
    expect(session.notes).toEqual([]);
  });

  it('given an unparsable sibling line, the reply after the redrive still says so', async () => {
    const session = new SessionGiven();
    await session.message('!write_note {"text":"x"}\n!echo {"text":');

    const decision = await session.respond('call_2_1', 'approve_once');

    expect(replyOf(decision)).toBe('write_note: 1\ncannot parse arguments for echo');
  });

  it('given the turn completed, the provider history holds a result for every call', async () => {
    const session = await givenS1Parked();
    await session.respond('call_2_1', 'approve_once');

    const history = session.history;

    expect(history.map((m) => (m.role === 'tool' ? `tool:${m.callId}` : m.role))).toEqual([
      'user',
      'assistant',
      'tool:call_2_2',
      'tool:call_2_1',
      'assistant',
    ]);
  });
});

describe('S4 a new message supersedes the parked batch', () => {
  it('S4 abandons with synthetic results, updates every pending prompt, and answers the new message', async () => {
    const session = await givenTwoGatedSiblings();

    const decision = await session.message('hello');

    expect(eventTypes(decision)).toEqual([
      'ToolBatchAbandoned',
      'UserMessageReceived',
      'TurnCompleted',
    ]);
    expect(decision.events[0].event).toEqual({
      type: 'ToolBatchAbandoned',
      batchId: 'batch_3',
      reason: 'superseded',
      results: [
        { callId: 'call_2_1', result: 'not run: superseded by a newer message' },
        { callId: 'call_2_2', result: 'not run: superseded by a newer message' },
      ],
    });
    expect(outputKinds(decision.outputs)).toEqual([
      'ToolInteractionUpdate{Abandoned}',
      'ToolInteractionUpdate{Abandoned}',
      'TextOutput{assistant}',
    ]);
    expect(outputsOf(decision.outputs, 'ToolInteractionUpdate')).toMatchObject([
      { callId: 'call_2_1', seq: 6, id: idAt(6, 0), reason: expect.stringContaining('superseded') },
      { callId: 'call_2_2', seq: 6, id: idAt(6, 1), reason: expect.stringContaining('superseded') },
    ]);
    expect(replyOf(decision)).toBe('You said: hello');
    expect(decision.state.turn.phase).toBe('NoActive');
    expect(executedCalls(session.journal)).toEqual([]);
  });

  it('S4 synthetic results cover only calls without one: the echo sibling keeps its result', async () => {
    const session = await givenS1Parked();

    const decision = await session.message('!echo {"text":"next"}');

    expect(eventsOf(decision, 'ToolBatchAbandoned')).toMatchObject([
      { results: [{ callId: 'call_2_1', result: expect.stringContaining('not run') }] },
    ]);
    expect(outputsOf(decision.outputs, 'ToolInteractionUpdate')).toMatchObject([
      { callId: 'call_2_1', status: 'Abandoned' },
    ]);
    // The superseding message is answered; the superseded batch gets no reply of its own.
    expect(replyOf(decision)).toBe('echo: next');
    const toolCalls = session.history.flatMap((m) =>
      m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.callId) : [],
    );
    const results = session.history.flatMap((m) => (m.role === 'tool' ? [m.callId] : []));
    expect([...results].sort()).toEqual([...toolCalls].sort());
  });

  it('S4 given a superseded prompt, a later click gets Rejected{prompt_expired} and Update{Expired}, never Resolved', async () => {
    const session = await givenS1Parked();
    await session.message('hello');

    const decision = await session.respond('call_2_1', 'approve_once');

    expect(eventTypes(decision)).toEqual(['ToolApprovalRefused']);
    expect(decision.events[0].event).toEqual({
      type: 'ToolApprovalRefused',
      commandId: 'click-3',
      callId: 'call_2_1',
      optionKey: 'approve_once',
      sender: REQUESTER,
      reason: 'prompt_expired',
      via: 'click',
    });
    expect(outputKinds(decision.outputs)).toEqual([
      'ToolInteractionRejected{prompt_expired}',
      'ToolInteractionUpdate{Expired}',
    ]);
    expect(outputsOf(decision.outputs, 'ToolInteractionRejected')).toMatchObject([
      { callId: 'call_2_1', sender: REQUESTER, text: expect.any(String) },
    ]);
    expect(outputsOf(decision.outputs, 'ToolInteractionUpdate')[0].reason).toMatch(/expired/);
    expect(outputsOf(session.published, 'ToolInteractionResolved')).toEqual([]);
    expect(executedCalls(session.journal)).toEqual(['call_2_2']);
  });

  it('S4 given a recovered parked batch, a new message still supersedes it', async () => {
    const session = await givenS1Parked();
    await session.recover();

    const decision = await session.message('hello');

    expect(eventTypes(decision)[0]).toBe('ToolBatchAbandoned');
    expect(outputKinds(decision.outputs)).toEqual([
      'ToolInteractionUpdate{Abandoned}',
      'TextOutput{assistant}',
    ]);
  });
  it('S4 given a superseding message that asks for a gated tool too, the old prompt is abandoned and a new one posted', async () => {
    const session = await givenS1Parked();

    const decision = await session.message('!write_note {"text":"y"}');

    expect(outputKinds(decision.outputs)).toEqual([
      'ToolInteractionUpdate{Abandoned}',
      'ToolInteractionRequest{call_8_1}',
    ]);
    expect(pendingCalls(session.state.turn).map((p) => p.callId)).toEqual(['call_8_1']);

    const stale = await session.respond('call_2_1', 'approve_once');
    const fresh = await session.respond('call_8_1', 'approve_once');

    expect(outputKinds(stale.outputs)).toEqual([
      'ToolInteractionRejected{prompt_expired}',
      'ToolInteractionUpdate{Expired}',
    ]);
    expect(replyOf(fresh)).toBe('write_note: 1');
    expect(executedCalls(session.journal)).toEqual(['call_2_2', 'call_8_1']);
  });
});

describe('S6 two gated siblings', () => {
  it('S6 the first answer does not redrive', async () => {
    const session = await givenTwoGatedSiblings();

    const decision = await session.respond('call_2_1', 'approve_once');

    expect(eventTypes(decision)).toEqual(['ToolApprovalResolved']);
    expect(outputKinds(decision.outputs)).toEqual(['ToolInteractionResolved{approve_once}']);
    expect(decision.state.turn.phase).toBe('WaitingForApprovals');
    expect(pendingCalls(session.state.turn).map((p) => p.callId)).toEqual(['call_2_2']);
    expect(executedCalls(session.journal)).toEqual([]);
  });

  it('S6 approve one, deny the other: only the approved one runs, both get results, one reply', async () => {
    const session = await givenTwoGatedSiblings();
    await session.respond('call_2_1', 'approve_once');

    const decision = await session.respond('call_2_2', 'deny');

    expect(eventTypes(decision)).toEqual([
      'ToolApprovalResolved',
      'ToolExecutionStarted',
      'ToolCallRecorded',
      'ToolCallRecorded',
      'TurnCompleted',
    ]);
    expect(eventsOf(decision, 'ToolCallRecorded')).toMatchObject([
      { callId: 'call_2_1', outcome: 'ok', result: '1' },
      { callId: 'call_2_2', outcome: 'denied', result: 'denied' },
    ]);
    expect(outputKinds(decision.outputs)).toEqual([
      'ToolInteractionResolved{deny}',
      'TextOutput{assistant}',
    ]);
    expect(replyOf(decision)).toBe('write_note: 1\nwrite_note: denied');
    expect(executedCalls(session.journal)).toEqual(['call_2_1']);
    expect(session.notes).toEqual(['a']);
  });

  it('S6 answers in reverse order still run the batch in batch order', async () => {
    const session = await givenTwoGatedSiblings();
    await session.respond('call_2_2', 'approve_once');

    const decision = await session.respond('call_2_1', 'approve_once');

    expect(eventsOf(decision, 'ToolCallRecorded')).toMatchObject([
      { callId: 'call_2_1', result: '1', note: 'a' },
      { callId: 'call_2_2', result: '2', note: 'b' },
    ]);
    expect(replyOf(decision)).toBe('write_note: 1\nwrite_note: 2');
  });

  it('S6 given one sibling answered, a new message abandons only the pending one', async () => {
    const session = await givenTwoGatedSiblings();
    await session.respond('call_2_1', 'approve_once');

    const decision = await session.message('hello');

    expect(outputKinds(decision.outputs)).toEqual([
      'ToolInteractionUpdate{Abandoned}',
      'TextOutput{assistant}',
    ]);
    expect(outputsOf(decision.outputs, 'ToolInteractionUpdate')[0].callId).toBe('call_2_2');
    expect(eventsOf(decision, 'ToolBatchAbandoned')[0].results.map((r) => r.callId)).toEqual([
      'call_2_1',
      'call_2_2',
    ]);
    expect(executedCalls(session.journal)).toEqual([]);
  });
});

describe('S7 answers are idempotent', () => {
  it('S7 the losing click of a race gets Rejected{prompt_expired} only, nothing runs twice', async () => {
    const session = await givenS1Parked();
    await session.respond('call_2_1', 'approve_once');

    const decision = await session.respond('call_2_1', 'deny', { id: 'click-late' });

    expect(eventTypes(decision)).toEqual(['ToolApprovalRefused']);
    expect(decision.outputs).toEqual([
      {
        type: 'ToolInteractionRejected',
        v: 1,
        id: idAt(11, 0),
        sessionId,
        conversation,
        occurredAt: decision.events[0].occurredAt,
        seq: 11,
        callId: 'call_2_1',
        sender: REQUESTER,
        reason: 'prompt_expired',
        text: expect.any(String),
      },
    ]);
    expect(eventsOf(decision, 'ToolApprovalRefused')[0].commandId).toBe('click-late');
    expect(executedCalls(session.journal)).toEqual(['call_2_2', 'call_2_1']);
    expect(
      session.journal.filter((e) => e.event.type === 'ToolApprovalResolved').map((e) => e.seq),
    ).toEqual([7]);
  });

  it('S7 a second click on an answered sibling while the other is pending is refused, no Update', async () => {
    const session = await givenTwoGatedSiblings();
    await session.respond('call_2_1', 'approve_once');

    const decision = await session.respond('call_2_1', 'approve_once');

    expect(outputKinds(decision.outputs)).toEqual(['ToolInteractionRejected{prompt_expired}']);
    expect(decision.state.turn.phase).toBe('WaitingForApprovals');
    expect(pendingCalls(decision.state.turn).map((p) => p.callId)).toEqual(['call_2_2']);
  });
});

describe('S8 who may answer, and with what', () => {
  it('S8 a wrong approver is refused and the prompt stays pending and clickable', async () => {
    const session = await givenS1Parked();

    const refused = await session.respond('call_2_1', 'approve_once', { sender: SOMEONE_ELSE });

    expect(eventTypes(refused)).toEqual(['ToolApprovalRefused']);
    expect(eventsOf(refused, 'ToolApprovalRefused')).toMatchObject([
      { reason: 'wrong_requester', sender: SOMEONE_ELSE },
    ]);
    expect(outputKinds(refused.outputs)).toEqual(['ToolInteractionRejected{wrong_requester}']);
    expect(outputsOf(refused.outputs, 'ToolInteractionRejected')[0].sender).toEqual(SOMEONE_ELSE);
    expect(pendingCalls(session.state.turn).map((p) => p.callId)).toEqual(['call_2_1']);

    const accepted = await session.respond('call_2_1', 'approve_once');

    expect(replyOf(accepted)).toBe('write_note: 1\necho: hi');
  });

  it.each(['approve_forever', 'APPROVE_ONCE'])(
    'S8 an option that is no standard key (%s) is refused as option_unavailable',
    async (optionKey) => {
      const session = await givenS1Parked();

      const decision = await session.respond('call_2_1', optionKey);

      expect(outputKinds(decision.outputs)).toEqual([
        'ToolInteractionRejected{option_unavailable}',
      ]);
      expect(eventsOf(decision, 'ToolApprovalRefused')).toMatchObject([
        { optionKey, reason: 'option_unavailable' },
      ]);
      expect(pendingCalls(decision.state.turn).map((p) => p.callId)).toEqual(['call_2_1']);
    },
  );

  it('S8 a standard option the policy did not offer is refused as option_unavailable', async () => {
    const onceOrDeny = [STANDARD_OPTIONS.approve_once, STANDARD_OPTIONS.deny];
    const session = new SessionGiven({
      model: new ScriptedModelClient(),
      tools: builtInTools(),
      policy: {
        apiEntryFor: () => undefined,
        entryFor: (name) =>
          name === 'write_note'
            ? { mode: 'approval', options: onceOrDeny }
            : { mode: 'auto', options: onceOrDeny },
      },
      grants: noToolGrants,
    });
    const parked = await session.message('!write_note {"text":"x"}');
    expect(outputsOf(parked.outputs, 'ToolInteractionRequest')[0].options).toEqual(onceOrDeny);

    const decision = await session.respond('call_2_1', 'approve_session');

    expect(outputKinds(decision.outputs)).toEqual(['ToolInteractionRejected{option_unavailable}']);
    expect(session.state.sessionGrants).toEqual([]);
    expect(pendingCalls(session.state.turn).map((p) => p.callId)).toEqual(['call_2_1']);
  });

  it('S8 given an automation principal, anyone may answer', async () => {
    const session = new SessionGiven();
    await session.message('!write_note {"text":"x"}', { principal: 'automation' });

    const decision = await session.respond('call_2_1', 'approve_once', { sender: SOMEONE_ELSE });

    expect(outputsOf(decision.outputs, 'ToolInteractionResolved')).toMatchObject([
      { resolvedBy: SOMEONE_ELSE },
    ]);
    expect(replyOf(decision)).toBe('write_note: 1');
  });

  it('X16 a prompt whose principal is neither user nor automation is answered by nobody, its requester included', async () => {
    const session = await givenS1Parked();
    // A kind of request this decider has no rule for (journaled by a newer version, say).
    for (const { event } of session.journal) {
      if (event.type === 'ToolApprovalRequested' && event.request.callId === 'call_2_1') {
        Object.assign(event.request, { principal: 'api' });
      }
    }

    const decision = await session.respond('call_2_1', 'approve_once');

    expect(outputKinds(decision.outputs)).toEqual(['ToolInteractionRejected{wrong_requester}']);
    expect(pendingCalls(session.state.turn).map((p) => p.callId)).toEqual(['call_2_1']);
  });

  it('S8 a wrong approver with an option not offered is refused as wrong_requester', async () => {
    const session = await givenS1Parked();

    const decision = await session.respond('call_2_1', 'approve_forever', {
      sender: SOMEONE_ELSE,
    });

    expect(outputKinds(decision.outputs)).toEqual(['ToolInteractionRejected{wrong_requester}']);
  });
});

describe('a response nothing journaled ever asked', () => {
  it('given no session, it is answered unjournaled with Rejected{prompt_expired} at seq 0', async () => {
    const session = new SessionGiven();

    const decision = await session.respond('call_2_1', 'approve_once', { id: 'U9:1700.1' });

    expect(decision.events).toEqual([]);
    expect(decision.outputs).toEqual([]);
    expect(decision.unjournaled).toEqual([
      {
        type: 'ToolInteractionRejected',
        v: 1,
        id: `${sessionId}:0:U9:1700.1`,
        sessionId,
        conversation,
        occurredAt: expect.any(String),
        seq: 0,
        callId: 'call_2_1',
        sender: REQUESTER,
        reason: 'prompt_expired',
        text: expect.any(String),
      },
    ]);
    expect(session.journal).toEqual([]);
  });

  it('given a session, a response for an unknown call is answered unjournaled too', async () => {
    const session = await givenS1Parked();
    const before = session.journal.length;

    const decision = await session.respond('call_99_1', 'approve_once', { id: 'click-x' });

    expect(decision.events).toEqual([]);
    expect(decision.unjournaled).toMatchObject([
      { id: `${sessionId}:0:click-x`, seq: 0, reason: 'prompt_expired', callId: 'call_99_1' },
    ]);
    expect(session.journal).toHaveLength(before);
    expect(pendingCalls(session.state.turn).map((p) => p.callId)).toEqual(['call_2_1']);
  });
});

describe('session grant ("Allow in this chat")', () => {
  it('given approve_session on write_note, the next write_note in a later message runs without a prompt', async () => {
    const session = new SessionGiven();
    await session.message('!write_note {"text":"a"}');
    const granted = await session.respond('call_2_1', 'approve_session');
    expect(outputsOf(granted.outputs, 'ToolInteractionResolved')).toMatchObject([
      { optionKey: 'approve_session', label: 'Allow in this chat' },
    ]);
    expect(session.state.sessionGrants).toEqual([
      { personId: REQUESTER.id, toolName: 'write_note' },
    ]);

    const decision = await session.message('!write_note {"text":"b"}');

    expect(eventTypes(decision)).toEqual([
      'UserMessageReceived',
      'ToolBatchStarted',
      // G4: the audit trail tells a call its grant covered from one someone answered.
      'ToolCallGranted',
      'ToolExecutionStarted',
      'ToolCallRecorded',
      'TurnCompleted',
    ]);
    expect(outputsOf(decision.outputs, 'ToolInteractionRequest')).toEqual([]);
    expect(replyOf(decision)).toBe('write_note: 2');
    expect(session.notes).toEqual(['a', 'b']);
  });

  it('given approve_once, the next write_note asks again', async () => {
    const session = new SessionGiven();
    await session.message('!write_note {"text":"a"}');
    await session.respond('call_2_1', 'approve_once');

    const decision = await session.message('!write_note {"text":"b"}');

    expect(outputKinds(decision.outputs)).toEqual(['ToolInteractionRequest{call_9_1}']);
    expect(session.state.sessionGrants).toEqual([]);
  });
});
