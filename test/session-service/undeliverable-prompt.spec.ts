import { deriveSessionId } from '@tollgate/protocol';
import { freshConversation, response, undeliverable, userMessage } from '../support/commands';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';

/**
 * R2 at the session service: a binding reports a prompt it can never show
 * (`ToolInteractionUndeliverable`, docs/protocol.md §4); the session must end that call visibly
 * instead of parking the batch for ever.
 */
describe('R2 — a prompt that can never be shown ends visibly (session service)', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('undeliv');
  });

  afterAll(async () => {
    await service.dispose();
  });

  it('R2 the call is expired, not approved, the batch goes on and the requester is told', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(
      userMessage(conversation, '!echo {"text":"hi"}\n!write_note {"text":"buy milk"}'),
    );
    const [request] = await service.outputs.waitForOutputs('the request', is.request(), {
      sessionId,
    });

    await service.send(
      undeliverable(conversation, request.callId, request.id, 'channel_not_found'),
    );

    const [expired] = await service.outputs.waitForOutputs(
      'the expiry',
      is.update('Expired', request.callId),
      { sessionId },
    );
    expect(expired.reason).toBe('undeliverable: channel_not_found');
    const [notice] = await service.outputs.waitForOutputs(
      'the notice to the requester',
      is.text('Could not show the approval prompt'),
      { sessionId },
    );
    expect(notice).toMatchObject({
      role: 'notice',
      text: 'Could not show the approval prompt for write_note: channel_not_found',
    });
    const [reply] = await service.outputs.waitForOutputs('the batch reply', is.text('echo: hi'), {
      sessionId,
    });
    expect(reply.text).toBe('echo: hi\nwrite_note: not shown (undeliverable)');
    // The notice is its own output, before the reply.
    expect(notice.id).not.toBe(reply.id);
    expect(notice.seq).toBeLessThan(reply.seq);

    const journal = await service.journal(sessionId);
    expect(journal.filter((e) => e.type === 'ToolExecutionStarted')).toHaveLength(1);
    expect(journal.find((e) => e.type === 'ToolApprovalResolved')?.data).toMatchObject({
      callId: request.callId,
      approved: false,
      commandId: `undeliverable:${request.id}`,
    });
    expect(journal.at(-1)?.type).toBe('TurnCompleted');
  });

  it('R2 a repeat of the command, or one for a call already answered, changes nothing', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(
      userMessage(conversation, '!write_note {"text":"a"}\n!write_note {"text":"b"}'),
    );
    const [first, second] = await service.outputs.waitForOutputs('both requests', is.request(), {
      sessionId,
      count: 2,
    });
    await service.send(response(conversation, first.callId, 'approve_once'));
    await service.outputs.waitForOutputs('the answer', is.resolved(first.callId), { sessionId });
    // Answered already: a late report for it is ignored.
    await service.send(undeliverable(conversation, first.callId, first.id, '403:10003'));
    // The second cannot be shown; a replica reports it twice, once with a new Nats-Msg-Id.
    const command = undeliverable(conversation, second.callId, second.id, '404:10003');
    await service.send(command);
    await service.send(command, { msgId: `${command.id}-again` });

    const [reply] = await service.outputs.waitForOutputs('the reply', is.text('write_note: 1'), {
      sessionId,
    });
    expect(reply.text).toBe('write_note: 1\nwrite_note: not shown (undeliverable)');
    const journal = await service.journal(sessionId);
    expect(journal.filter((e) => e.type === 'ToolApprovalResolved')).toHaveLength(2);
    const outputs = service.outputs.outputs(sessionId);
    expect(outputs.filter(is.update('Expired'))).toHaveLength(1);
    expect(outputs.filter(is.text('Could not show'))).toHaveLength(1);
  });
});
