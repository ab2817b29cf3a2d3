import { jetstreamManager } from '@nats-io/jetstream';
import { deriveSessionId, SESSION_SERVICE_DURABLE, streamNames } from '@tollgate/protocol';
import { OpenAiApiFake } from '@tollgate/platform-standins';
import { freshConversation, response, userMessage } from '../support/commands';
import { withClient } from '../support/database';
import { gatedNoteModel, ModelGate } from '../support/model-gate';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { waitFor } from '../support/wait-for';

/**
 * (process) Commands of one session are decided one at a time in arrival order, while the
 * JetStream messages are acked at once: what arrives during a turn waits in the session's
 * inbox, durably, and is answered after it.
 */
describe('S15 — per-session order (process)', () => {
  const gates = new Map<string, ModelGate>();
  let api: OpenAiApiFake;
  let service: SessionServiceFixture;

  beforeAll(async () => {
    api = await OpenAiApiFake.start({ fallback: gatedNoteModel(gates) });
    service = await SessionServiceFixture.create('s15', {
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

  const asked = (text: string) =>
    waitFor(`the model to be asked "${text}"`, () =>
      api.completionRequests.some((r) => r.messages.at(-1)?.content === text),
    );

  const inbox = (sessionId: string) =>
    withClient(async (client) => {
      const rows = await client.query<{ type: string }>(
        `SELECT command->>'type' AS type FROM "${service.database.schema}".session_inbox
         WHERE session_id = $1 ORDER BY position`,
        [sessionId],
      );
      return rows.rows.map((r) => r.type);
    });

  async function everyCommandAcked(): Promise<void> {
    const jsm = await jetstreamManager(service.nc);
    await waitFor('every command acked', async () => {
      const info = await jsm.consumers.info(
        streamNames(service.prefix).commands,
        SESSION_SERVICE_DURABLE,
      );
      return info.num_ack_pending === 0 && info.num_pending === 0;
    });
  }

  async function deadLettered(): Promise<number> {
    const jsm = await jetstreamManager(service.nc);
    return (await jsm.streams.info(streamNames(service.prefix).deadLetters)).state.messages;
  }

  it('S15 messages that arrive while a turn runs are journaled at once, acked, and answered after it, in order; none is dead-lettered', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    gates.set('first', new ModelGate());
    await service.send(userMessage(conversation, 'first'));
    await asked('first');

    await service.send(userMessage(conversation, 'second'));
    await service.send(userMessage(conversation, 'third'));
    await waitFor('both queued in the inbox', async () => (await inbox(sessionId)).length === 2);
    await everyCommandAcked();
    expect((await service.journal(sessionId)).map((e) => e.type)).toEqual([
      'SessionStarted',
      'UserMessageReceived',
    ]);

    gates.get('first')!.open();
    const replies = await service.outputs.waitForOutputs('three replies', is.text('answer to'), {
      sessionId,
      count: 3,
    });
    expect(replies.map((r) => r.text)).toEqual([
      'answer to first',
      'answer to second',
      'answer to third',
    ]);
    const journal = await service.journal(sessionId);
    expect(
      journal.map((e) =>
        e.type === 'UserMessageReceived' ? `${e.type}:${String(e.data.text)}` : e.type,
      ),
    ).toEqual([
      'SessionStarted',
      'UserMessageReceived:first',
      'TurnCompleted',
      'UserMessageReceived:second',
      'TurnCompleted',
      'UserMessageReceived:third',
      'TurnCompleted',
    ]);
    // Each later message was answered with the earlier turns in its history.
    const third = api.completionRequests.find((r) => r.messages.at(-1)?.content === 'third')!;
    expect(third.messages.map((m) => m.content)).toEqual([
      'first',
      'answer to first',
      'second',
      'answer to second',
      'third',
    ]);
    expect(await inbox(sessionId)).toEqual([]);
    expect(await deadLettered()).toBe(0);
  });

  it('S15 a click that arrives while its session is busy is decided after the message that superseded its prompt: prompt_expired, nothing runs', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(userMessage(conversation, 'note:milk'));
    await service.outputs.waitForOutputs('the prompt', is.request('call_milk'), { sessionId });

    gates.set('never mind', new ModelGate());
    await service.send(userMessage(conversation, 'never mind'));
    await asked('never mind');
    await service.outputs.waitForOutputs(
      'the superseded prompt',
      is.update('Abandoned', 'call_milk'),
      {
        sessionId,
      },
    );
    await service.send(response(conversation, 'call_milk', 'approve_once'));
    await waitFor('the click queued behind the turn', async () =>
      (await inbox(sessionId)).includes('ToolInteractionResponse'),
    );
    await everyCommandAcked();

    gates.get('never mind')!.open();
    await service.outputs.waitForOutputs(
      'the refusal',
      is.rejected('prompt_expired', 'call_milk'),
      {
        sessionId,
      },
    );
    const journal = await service.journal(sessionId);
    const types = journal.map((e) => e.type);
    expect(types.slice(types.indexOf('ToolBatchAbandoned'))).toEqual([
      'ToolBatchAbandoned',
      'UserMessageReceived',
      'TurnCompleted',
      'ToolApprovalRefused',
    ]);
    expect(types).not.toContain('ToolExecutionStarted');
    // The refusal went out after the reply to the message that came first.
    const seen = service.outputs.seen.filter((s) => s.output.sessionId === sessionId);
    const reply = seen.find(
      (s) => s.output.type === 'TextOutput' && s.output.role === 'assistant',
    )!;
    const refusal = seen.find((s) => s.output.type === 'ToolInteractionRejected')!;
    expect(refusal.streamSeq).toBeGreaterThan(reply.streamSeq);
    expect(await deadLettered()).toBe(0);
  });
});
