import { deriveSessionId } from '@tollgate/protocol';
import { freshConversation, response, userMessage } from '../support/commands';
import { withClient } from '../support/database';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';

/**
 * (process, crash) The service dies for real (SIGKILL, by its own failpoint) at an exact
 * point of a redrive; a new process settles the turn from the journal alone.
 */
describe('crash recovery (process, crash)', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('crash');
  });

  afterAll(async () => {
    await service.dispose();
  });

  async function parkWriteNote(text: string) {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(userMessage(conversation, `!write_note {"text":"${text}"}`));
    await service.outputs.waitForOutputs('the request', is.request('call_2_1'), { sessionId });
    return { conversation, sessionId };
  }

  /** Restarts with a failpoint, clicks, and waits for the process to kill itself. */
  async function crashOnApproval(
    conversation: ReturnType<typeof freshConversation>,
    failpoint: 'approval-resolved' | 'tool-starting',
  ) {
    await service.stop();
    await service.start({ TOLLGATE_FAILPOINT: failpoint });
    await service.send(response(conversation, 'call_2_1', 'approve_once'));
    const exit = await service.process!.exited();
    expect(exit.signal).toBe('SIGKILL');
    service.process = undefined;
  }

  it('S9 approved but not started when the process died: recovery runs it once and the turn completes', async () => {
    const { conversation, sessionId } = await parkWriteNote('resumed');
    await crashOnApproval(conversation, 'approval-resolved');
    const beforeRestart = (await service.journal(sessionId)).map((e) => e.type);
    expect(beforeRestart).toContain('ToolApprovalResolved');
    expect(beforeRestart).not.toContain('ToolExecutionStarted');

    await service.start();
    await service.outputs.waitForOutputs('the reply', is.text('write_note: 1'), { sessionId });
    const journal = await service.journal(sessionId);
    expect(journal.filter((e) => e.type === 'ToolExecutionStarted')).toHaveLength(1);
    expect(journal.filter((e) => e.type === 'ToolCallRecorded')).toHaveLength(1);
    expect(journal.at(-1)!.type).toBe('TurnCompleted');
  });

  it('S9 started but not finished when the process died: abandoned as interrupted, never re-run, notice sent', async () => {
    const { conversation, sessionId } = await parkWriteNote('maybe');
    await crashOnApproval(conversation, 'tool-starting');
    expect((await service.journal(sessionId)).at(-1)!.type).toBe('ToolExecutionStarted');

    await service.start();
    const [notice] = await service.outputs.waitForOutputs(
      'the interrupted notice',
      is.text('may not have completed'),
      { sessionId },
    );
    expect(notice.role).toBe('notice');
    const journal = await service.journal(sessionId);
    expect(journal.filter((e) => e.type === 'ToolExecutionStarted')).toHaveLength(1);
    expect(journal.filter((e) => e.type === 'ToolCallRecorded')).toHaveLength(0);
    const abandoned = journal.find((e) => e.type === 'ToolBatchAbandoned')!;
    expect(abandoned.data).toMatchObject({
      reason: 'interrupted',
      results: [{ callId: 'call_2_1', result: 'interrupted: the action may not have completed' }],
    });

    // History is healed: the session takes new messages, and a restart finds nothing to do.
    await service.send(userMessage(conversation, 'are you there?'));
    await service.outputs.waitForOutputs('the next reply', is.text('You said: are you there?'), {
      sessionId,
    });
    const recoveries = (await service.journal(sessionId)).filter(
      (e) => e.type === 'SessionRecovered',
    );
    await service.restart();
    const after = await service.journal(sessionId);
    expect(after.filter((e) => e.type === 'ToolExecutionStarted')).toHaveLength(1);
    expect(after.filter((e) => e.type === 'SessionRecovered')).toHaveLength(recoveries.length);
  });

  it('S5 a turn context that cannot be restored expires the prompt at redrive; nothing runs', async () => {
    const { conversation, sessionId } = await parkWriteNote('lost');
    // As if written by a version whose context this one cannot read. The context is the
    // journal up to the batch (S16: never copied into each request), so that is what breaks.
    await withClient((client) =>
      client.query(
        `UPDATE "${service.database.schema}".session_events SET data = data - 'content'
         WHERE session_id = $1 AND type = 'ToolBatchStarted'`,
        [sessionId],
      ),
    );
    await service.send(response(conversation, 'call_2_1', 'approve_once'));
    await service.outputs.waitForOutputs('the expiry', is.update('Expired', 'call_2_1'), {
      sessionId,
    });
    const [notice] = await service.outputs.waitForOutputs(
      'the expired notice',
      is.text('expired'),
      {
        sessionId,
      },
    );
    expect(notice.role).toBe('notice');
    const journal = await service.journal(sessionId);
    expect(journal.filter((e) => e.type === 'ToolExecutionStarted')).toHaveLength(0);
    expect(journal.find((e) => e.type === 'ToolBatchAbandoned')?.data).toMatchObject({
      reason: 'expired',
    });
  });
});
