import { deriveSessionId, deriveSubAgentSessionId } from '@tollgate/protocol';
import { withClient } from '../support/database';
import {
  alice,
  bob,
  freshConversation,
  response,
  subAgentResponse,
  userMessage,
} from '../support/commands';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';

const agent = { name: 'scribe', parentCallId: 'call_2_1' };
/** The child's task holds its own tool line: the scripted model makes it the child's call. */
const DELEGATE = `!delegate ${JSON.stringify({
  task: '!write_note {"text":"from the child"}',
  name: 'scribe',
  tools: ['write_note'],
})}`;

/** (process) Sub-agents: a `delegate` call runs a child session whose prompts the parent's chat answers. */
describe('sub-agent approvals (process)', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('subagent');
  });

  afterAll(async () => {
    await service?.dispose();
  });

  /** Delegates, approves the delegation, and waits for the child's prompt. */
  async function delegate() {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    const childId = deriveSubAgentSessionId(sessionId, agent.parentCallId);
    await service.send(userMessage(conversation, DELEGATE));
    const [delegation] = await service.outputs.waitForOutputs('the delegate prompt', is.request(), {
      sessionId,
    });
    expect(delegation).toMatchObject({ toolName: 'delegate', callId: 'call_2_1' });
    expect(delegation.agent).toBeUndefined();
    await service.send(response(conversation, 'call_2_1', 'approve_once'));
    const [childPrompt] = await service.outputs.waitForOutputs("the child's prompt", is.request(), {
      sessionId: childId,
    });
    return { conversation, sessionId, childId, childPrompt };
  }

  it("S19 delegate runs a child whose gated call is shown in the parent's conversation, named, answered by the parent's requester; its result is the delegate's", async () => {
    const { conversation, sessionId, childId, childPrompt } = await delegate();
    expect(childPrompt).toMatchObject({
      sessionId: childId,
      conversation,
      agent,
      toolName: 'write_note',
      requester: alice,
      principal: 'user',
    });

    await service.send(
      subAgentResponse(conversation, agent, childPrompt.callId, 'approve_once', { sender: bob }),
    );
    await service.outputs.waitForOutputs('bob refused', is.rejected('wrong_requester'), {
      sessionId: childId,
    });
    await service.send(subAgentResponse(conversation, agent, childPrompt.callId, 'approve_once'));
    const [resolved] = await service.outputs.waitForOutputs('resolved', is.resolved(), {
      sessionId: childId,
    });
    expect(resolved).toMatchObject({ agent, resolvedBy: alice });

    const [reply] = await service.outputs.waitForOutputs('the parent reply', is.text('delegate'), {
      sessionId,
    });
    expect(reply.text).toBe('delegate: write_note: 1');
    // The child's reply is the delegate result, not a post of its own.
    expect(service.outputs.outputs(childId).filter(is.text())).toEqual([]);
    const child = await service.journal(childId);
    expect(child[0]).toMatchObject({
      type: 'SessionStarted',
      data: { parent: { sessionId, callId: 'call_2_1', name: 'scribe' }, tools: ['write_note'] },
    });
    expect(child.at(-1)!.type).toBe('TurnCompleted');
    const parent = (await service.journal(sessionId)).map((e) => e.type);
    expect(parent.filter((t) => t === 'SubAgentStarted')).toHaveLength(1);
    expect(parent.slice(-3)).toEqual(['ToolCallRecorded', 'SubAgentFinished', 'TurnCompleted']);
  });

  it('S20 across a restart the child\'s pending prompt is refreshed "still valid", and a click redrives the child and then the parent', async () => {
    const { conversation, sessionId, childId, childPrompt } = await delegate();

    await service.restart();
    const [refresh] = await service.outputs.waitForOutputs(
      "the child's prompt refreshed",
      is.update('RefreshedAfterRestart', childPrompt.callId),
      { sessionId: childId },
    );
    expect(refresh.reason).toMatch(/still valid/);
    expect(refresh.request).toEqual(childPrompt);
    expect(refresh.agent).toEqual(agent);

    await service.send(subAgentResponse(conversation, agent, childPrompt.callId, 'approve_once'));
    const [reply] = await service.outputs.waitForOutputs('the parent reply', is.text('delegate'), {
      sessionId,
    });
    expect(reply.text).toBe('delegate: write_note: 1');
  });

  it("S21 a child that cannot be resumed expires its prompt with a notice, and the parent's delegate fails with a reason the model sees", async () => {
    const { conversation, sessionId, childId, childPrompt } = await delegate();
    // A turn end while parked: no version of the approval turn can replay the child.
    await withClient((client) =>
      client.query(
        `INSERT INTO "${service.database.schema}".session_events (session_id, seq, type, data, occurred_at)
         SELECT session_id, max(seq) + 1, 'TurnCompleted', '{"type":"TurnCompleted","reply":"?"}', now()
         FROM "${service.database.schema}".session_events WHERE session_id = $1 GROUP BY session_id`,
        [childId],
      ),
    );

    await service.restart();
    const [expired] = await service.outputs.waitForOutputs(
      "the child's prompt expired",
      is.update('Expired', childPrompt.callId),
      { sessionId: childId },
    );
    expect(expired.agent).toEqual(agent);
    await service.outputs.waitForOutputs('the notice', is.text('could not be restored'), {
      sessionId: childId,
    });
    const [reply] = await service.outputs.waitForOutputs('the parent reply', is.text('delegate'), {
      sessionId,
    });
    expect(reply.text).toMatch(/^delegate: error: sub-agent scribe could not finish: /);

    // The parent can ask again: a new delegation gets a new child.
    await service.send(userMessage(conversation, DELEGATE));
    const prompts = await service.outputs.waitForOutputs('a new delegate prompt', is.request(), {
      sessionId,
      count: 2,
    });
    expect(prompts[1]).toMatchObject({ toolName: 'delegate' });
    expect(prompts[1].callId).not.toBe(prompts[0].callId);
  });

  it("S21 a new message in the parent's conversation abandons the whole tree; a late click on the child's prompt is refused", async () => {
    const { conversation, sessionId, childId, childPrompt } = await delegate();

    await service.send(userMessage(conversation, 'never mind'));
    const [abandoned] = await service.outputs.waitForOutputs(
      "the child's prompt abandoned",
      is.update('Abandoned', childPrompt.callId),
      { sessionId: childId },
    );
    expect(abandoned.reason).toMatch(/superseded/);
    await service.outputs.waitForOutputs('the new answer', is.text('You said: never mind'), {
      sessionId,
    });
    await service.send(subAgentResponse(conversation, agent, childPrompt.callId, 'approve_once'));
    await service.outputs.waitForOutputs('the late click refused', is.rejected('prompt_expired'), {
      sessionId: childId,
    });
    const child = (await service.journal(childId)).map((e) => e.type);
    expect(child).not.toContain('ToolExecutionStarted');
    expect(child.at(-2)).toBe('ToolBatchAbandoned');
    const parent = (await service.journal(sessionId)).map((e) => e.type);
    expect(parent).not.toContain('SubAgentFinished');
  });
});
