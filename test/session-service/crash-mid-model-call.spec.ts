import { deriveSessionId } from '@tollgate/protocol';
import { OpenAiApiFake } from '@tollgate/platform-standins';
import { freshConversation, response, userMessage } from '../support/commands';
import { gatedNoteModel, ModelGate } from '../support/model-gate';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { waitFor } from '../support/wait-for';

/**
 * (process, crash) The service dies while a model call is outstanding: by its failpoint
 * right after the turn committed what it decided, or by a SIGKILL while the provider holds
 * the request. The next process resumes the turn from the journal: it asks the model again,
 * publishes exactly one reply, runs no tool twice, and refreshes the prompts still shown.
 */
describe('S17 — crash mid-model-call (process, crash)', () => {
  const gates = new Map<string, ModelGate>();
  let api: OpenAiApiFake;
  let service: SessionServiceFixture;

  beforeAll(async () => {
    api = await OpenAiApiFake.start({ fallback: gatedNoteModel(gates) });
    service = await SessionServiceFixture.create('s17', {
      MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: api.baseUrl,
      MODEL: 'gpt-fake',
    });
  });

  afterAll(async () => {
    for (const gate of gates.values()) gate.open();
    await service?.dispose();
    await api?.stop();
  });

  const requestsEnding = (content: string) =>
    api.completionRequests.filter((r) => r.messages.at(-1)?.content === content);

  async function diedBy(signal: 'SIGKILL') {
    const exit = await service.process!.exited();
    expect(exit.signal).toBe(signal);
    service.process = undefined;
  }

  async function exactlyOneReply(sessionId: string, text: string) {
    await service.outputs.waitForOutputs('the reply', is.text(text), { sessionId });
    // A restart finds nothing left to do: no second reply, no second turn end.
    await service.restart();
    const replies = service.outputs
      .outputs(sessionId)
      .filter((o) => o.type === 'TextOutput' && o.role === 'assistant');
    expect(replies).toHaveLength(1);
    const journal = await service.journal(sessionId);
    expect(journal.filter((e) => e.type === 'TurnCompleted')).toHaveLength(1);
    return journal;
  }

  it('S17 killed by its failpoint right before the model call: the next process makes the call and publishes one reply', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.stop();
    await service.start({ TOLLGATE_FAILPOINT: 'model-calling' });
    await service.send(userMessage(conversation, 'are you there'));
    await diedBy('SIGKILL');
    expect((await service.journal(sessionId)).map((e) => e.type)).toEqual([
      'SessionStarted',
      'UserMessageReceived',
    ]);

    await service.start();
    await exactlyOneReply(sessionId, 'answer to are you there');
    expect(requestsEnding('are you there')).toHaveLength(1);
  });

  it('S17 SIGKILL while the provider holds the request: the call is issued again and one reply is published', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    const gate = new ModelGate();
    gates.set('slow question', gate);
    await service.send(userMessage(conversation, 'slow question'));
    await waitUntilAsked('slow question', 1);
    await service.stop('SIGKILL');

    // The provider answers the dead process's call; nobody hears it.
    gates.delete('slow question');
    gate.open();
    await service.start();
    const journal = await exactlyOneReply(sessionId, 'answer to slow question');
    expect(requestsEnding('slow question')).toHaveLength(2);
    expect(journal.map((e) => e.type)).toEqual([
      'SessionStarted',
      'UserMessageReceived',
      'TurnCompleted',
    ]);
  });

  it('S17 killed before the model call that follows a redrive: the tool is not run again, one reply, and prompts still shown are refreshed', async () => {
    const parked = freshConversation();
    const parkedId = deriveSessionId(parked);
    await service.send(userMessage(parked, 'note:park'));
    await service.outputs.waitForOutputs('the parked prompt', is.request('call_park'), {
      sessionId: parkedId,
    });
    const running = freshConversation();
    const runningId = deriveSessionId(running);
    await service.send(userMessage(running, 'note:run'));
    await service.outputs.waitForOutputs('the prompt', is.request('call_run'), {
      sessionId: runningId,
    });

    await service.stop();
    await service.start({ TOLLGATE_FAILPOINT: 'model-calling' });
    const refreshesBefore = (
      await service.outputs.waitForOutputs(
        'the refresh on the failpoint start',
        is.update('RefreshedAfterRestart', 'call_park'),
        { sessionId: parkedId },
      )
    ).length;
    await service.send(response(running, 'call_run', 'approve_once'));
    await diedBy('SIGKILL');
    const beforeRestart = (await service.journal(runningId)).map((e) => e.type);
    expect(beforeRestart.slice(-3)).toEqual([
      'ToolApprovalResolved',
      'ToolExecutionStarted',
      'ToolCallRecorded',
    ]);

    await service.start();
    await service.outputs.waitForOutputs(
      'the parked prompt refreshed again',
      is.update('RefreshedAfterRestart', 'call_park'),
      { sessionId: parkedId, count: refreshesBefore + 1 },
    );
    const journal = await exactlyOneReply(runningId, 'the tool said 1');
    expect(journal.filter((e) => e.type === 'ToolExecutionStarted')).toHaveLength(1);
    expect(journal.filter((e) => e.type === 'ToolCallRecorded')).toHaveLength(1);
    const afterTool = requestsEnding('1');
    expect(afterTool).toHaveLength(1);
    expect(afterTool[0].messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_run',
      content: '1',
    });
  });

  async function waitUntilAsked(content: string, count: number) {
    await waitFor(
      `${count} request(s) for "${content}"`,
      () => requestsEnding(content).length >= count,
    );
  }
});
