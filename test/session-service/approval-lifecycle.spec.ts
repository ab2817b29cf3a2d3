import { deriveSessionId } from '@tollgate/protocol';
import { alice, bob, freshConversation, response, userMessage } from '../support/commands';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';

/**
 * The session service driven over NATS alone: commands in on <PREFIX>_CMD, outputs read
 * back from <PREFIX>_OUT, against the built service running as a child process.
 */
describe('session service approval lifecycle (over NATS)', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('lifecycle');
  });

  afterAll(async () => {
    await service.dispose();
  });

  it('S1 a gated call emits one request, ungated siblings run, the batch parks', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(
      userMessage(conversation, '!echo {"text":"hi"}\n!write_note {"text":"buy milk"}'),
    );
    const [request] = await service.outputs.waitForOutputs('the request', is.request(), {
      sessionId,
    });
    expect(request).toMatchObject({
      callId: 'call_2_2',
      toolName: 'write_note',
      requester: alice,
      principal: 'user',
      options: [
        { key: 'approve_once', label: 'Approve once', style: 'primary' },
        { key: 'approve_session', label: 'Allow in this chat', style: 'default' },
        { key: 'approve_always', label: 'Always allow', style: 'default' },
        { key: 'deny', label: 'Deny', style: 'danger' },
      ],
    });
    expect(request.displayText).toContain('buy milk');
    const journal = await service.journal(sessionId);
    const types = journal.map((e) => e.type);
    expect(types).toEqual([
      'SessionStarted',
      'UserMessageReceived',
      'ToolBatchStarted',
      'ToolExecutionStarted',
      'ToolCallRecorded',
      'ToolApprovalRequested',
    ]);
    expect(journal[4].data).toMatchObject({ callId: 'call_2_1', result: 'hi', outcome: 'ok' });
    // Output ids are <sessionId>:<seq>:<n>, and the same id is the Nats-Msg-Id.
    const seen = service.outputs.seen.filter((s) => s.output.sessionId === sessionId);
    expect(seen).toHaveLength(1);
    expect(seen[0].msgId).toBe(`${sessionId}:6:0`);
    expect(seen[0].output.id).toBe(`${sessionId}:6:0`);
    expect(seen[0].subject).toBe(`${service.prefix}.out.slack.${sessionId}.call.call_2_2.request`);
    expect(types).not.toContain('TurnCompleted');
  });

  it('S4 a new message supersedes pending approvals; the old prompt can never run', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(userMessage(conversation, '!write_note {"text":"old"}'));
    await service.outputs.waitForOutputs('the request', is.request('call_2_1'), { sessionId });
    await service.send(userMessage(conversation, 'never mind'));
    const [abandoned] = await service.outputs.waitForOutputs(
      'the abandon',
      is.update('Abandoned', 'call_2_1'),
      { sessionId },
    );
    expect(abandoned.reason).toContain('superseded');
    await service.outputs.waitForOutputs('the reply', is.text('You said: never mind'), {
      sessionId,
    });
    const journal = await service.journal(sessionId);
    const abandonedEvent = journal.find((e) => e.type === 'ToolBatchAbandoned');
    expect(abandonedEvent?.data).toMatchObject({
      reason: 'superseded',
      results: [{ callId: 'call_2_1' }],
    });
    // The synthetic result is journaled before the superseding message.
    expect(abandonedEvent!.seq).toBeLessThan(
      journal.find((e) => e.type === 'UserMessageReceived' && e.data.text === 'never mind')!.seq,
    );

    await service.send(response(conversation, 'call_2_1', 'approve_once'));
    await service.outputs.waitForOutputs(
      'the rejection',
      is.rejected('prompt_expired', 'call_2_1'),
      {
        sessionId,
      },
    );
    await service.outputs.waitForOutputs('the expiry', is.update('Expired', 'call_2_1'), {
      sessionId,
    });
    const after = await service.journal(sessionId);
    expect(after.filter((e) => e.type === 'ToolExecutionStarted')).toHaveLength(0);
    expect(service.outputs.outputs(sessionId).filter(is.resolved())).toHaveLength(0);
  });

  it('S6 two gated siblings: the redrive waits for both; only the approved one runs', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(
      userMessage(conversation, '!write_note {"text":"one"}\n!write_note {"text":"two"}'),
    );
    await service.outputs.waitForOutputs('both requests', is.request(), { sessionId, count: 2 });
    await service.send(response(conversation, 'call_2_1', 'approve_once'));
    await service.outputs.waitForOutputs('the first answer', is.resolved('call_2_1'), {
      sessionId,
    });
    const halfway = await service.journal(sessionId);
    expect(halfway.filter((e) => e.type === 'ToolExecutionStarted')).toHaveLength(0);

    await service.send(response(conversation, 'call_2_2', 'deny'));
    const [reply] = await service.outputs.waitForOutputs('the reply', is.text('write_note'), {
      sessionId,
    });
    expect(reply.text).toBe('write_note: 1\nwrite_note: denied');
    const journal = await service.journal(sessionId);
    expect(
      journal.filter((e) => e.type === 'ToolExecutionStarted').map((e) => e.data.callId),
    ).toEqual(['call_2_1']);
    expect(journal.filter((e) => e.type === 'ToolCallRecorded').map((e) => e.data.outcome)).toEqual(
      ['ok', 'denied'],
    );
  });

  it('S7 the same click twice, and two clicks racing, resolve and run once', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(userMessage(conversation, '!write_note {"text":"once"}'));
    await service.outputs.waitForOutputs('the request', is.request('call_2_1'), { sessionId });
    const click = response(conversation, 'call_2_1', 'approve_once', { id: `click-${sessionId}` });
    const racing = response(conversation, 'call_2_1', 'deny');
    await Promise.all([service.send(click), service.send(racing)]);
    await service.outputs.waitForOutputs('the loser’s rejection', is.rejected('prompt_expired'), {
      sessionId,
    });
    // The same command id again, past what JetStream's duplicate window would catch:
    // published under a new Nats-Msg-Id, it must still be recognised by its command id.
    const { jetstream } = await import('@nats-io/jetstream');
    const { commandSubject, encodeMessage, Subjects } = await import('@tollgate/protocol');
    await jetstream(service.nc).publish(
      commandSubject(new Subjects(service.prefix), click),
      encodeMessage(click),
      { msgID: `${click.id}-redelivered-later` },
    );
    await service.outputs.waitForOutputs('the reply', is.text('write_note'), { sessionId });
    const marker = userMessage(conversation, 'after');
    await service.send(marker);
    await service.outputs.waitForOutputs('the marker reply', is.text('You said: after'), {
      sessionId,
    });

    const journal = await service.journal(sessionId);
    expect(journal.filter((e) => e.type === 'ToolApprovalResolved')).toHaveLength(1);
    const outputs = service.outputs.outputs(sessionId);
    expect(outputs.filter(is.resolved())).toHaveLength(1);
    expect(outputs.filter(is.rejected())).toHaveLength(1);
    expect(outputs.filter((o) => o.type === 'ToolInteractionUpdate')).toHaveLength(0);
    const executions = journal.filter((e) => e.type === 'ToolExecutionStarted');
    const resolved = journal.find((e) => e.type === 'ToolApprovalResolved')!;
    expect(executions).toHaveLength(resolved.data.optionKey === 'deny' ? 0 : 1);
  });

  it('S8 a wrong approver and an option not offered are refused; automation lets anyone answer', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(userMessage(conversation, '!write_note {"text":"mine"}'));
    await service.outputs.waitForOutputs('the request', is.request('call_2_1'), { sessionId });
    await service.send(response(conversation, 'call_2_1', 'approve_once', { sender: bob }));
    const [wrong] = await service.outputs.waitForOutputs(
      'wrong requester',
      is.rejected('wrong_requester'),
      { sessionId },
    );
    expect(wrong.sender).toEqual(bob);
    await service.send(response(conversation, 'call_2_1', 'approve_forever'));
    await service.outputs.waitForOutputs('option unavailable', is.rejected('option_unavailable'), {
      sessionId,
    });
    // Still pending and answerable by the requester.
    await service.send(response(conversation, 'call_2_1', 'approve_once'));
    await service.outputs.waitForOutputs('the resolution', is.resolved('call_2_1'), { sessionId });
    const refused = (await service.journal(sessionId)).filter(
      (e) => e.type === 'ToolApprovalRefused',
    );
    expect(refused.map((e) => e.data.reason)).toEqual(['wrong_requester', 'option_unavailable']);

    const automated = freshConversation();
    const automatedId = deriveSessionId(automated);
    await service.send(
      userMessage(automated, '!write_note {"text":"from a webhook"}', { principal: 'automation' }),
    );
    const [request] = await service.outputs.waitForOutputs('the automation request', is.request(), {
      sessionId: automatedId,
    });
    expect(request.principal).toBe('automation');
    await service.send(response(automated, request.callId, 'approve_once', { sender: bob }));
    const [resolved] = await service.outputs.waitForOutputs('bob’s answer', is.resolved(), {
      sessionId: automatedId,
    });
    expect(resolved.resolvedBy).toEqual(bob);
  });

  it('answers a response for an unknown session or call with prompt_expired at seq 0', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    const stray = response(conversation, 'call_9_9', 'approve_once');
    await service.send(stray);
    const [rejected] = await service.outputs.waitForOutputs(
      'the rejection',
      is.rejected('prompt_expired'),
      {
        sessionId,
      },
    );
    expect(rejected).toMatchObject({ seq: 0, id: `${sessionId}:0:${stray.id}` });
    expect(await service.journal(sessionId)).toHaveLength(0);

    // A known session, but a call it never asked about.
    await service.send(userMessage(conversation, 'hello'));
    await service.outputs.waitForOutputs('the reply', is.text('You said: hello'), { sessionId });
    const unknownCall = response(conversation, 'call_1_1', 'approve_once');
    await service.send(unknownCall);
    const rejections = await service.outputs.waitForOutputs(
      'the second rejection',
      is.rejected('prompt_expired'),
      { sessionId, count: 2 },
    );
    expect(rejections[1]).toMatchObject({ seq: 0, id: `${sessionId}:0:${unknownCall.id}` });
  });
});
