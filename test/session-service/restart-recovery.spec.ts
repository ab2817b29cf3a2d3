import { deriveSessionId } from '@tollgate/protocol';
import { freshConversation, join, response, userMessage } from '../support/commands';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';

/** (process) The service is stopped and a new process started; nothing is in memory between. */
describe('session service restarts (process)', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('restart');
  });

  afterAll(async () => {
    await service.dispose();
  });

  it('S2 a restart refreshes every pending call; a click then redrives under the original context', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(
      userMessage(
        conversation,
        '!write_note {"text":"a"}\n!echo {"text":"b"}\n!write_note {"text":"c"}',
      ),
    );
    const requests = await service.outputs.waitForOutputs('two requests', is.request(), {
      sessionId,
      count: 2,
    });

    const exit = await service.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    await service.start();

    const refreshes = await service.outputs.waitForOutputs(
      'refreshes',
      is.update('RefreshedAfterRestart'),
      { sessionId, count: 2 },
    );
    for (const refresh of refreshes) {
      const original = requests.find((r) => r.callId === refresh.callId);
      expect(refresh.request).toEqual(original);
      expect(refresh.seq).toBeGreaterThan(original!.seq);
    }
    const journal = await service.journal(sessionId);
    const recovered = journal.filter((e) => e.type === 'SessionRecovered');
    expect(recovered).toHaveLength(1);
    expect(recovered[0].data.pendingCallIds).toEqual(['call_2_1', 'call_2_3']);

    await service.send(response(conversation, 'call_2_1', 'approve_once'));
    await service.send(response(conversation, 'call_2_3', 'approve_once'));
    const [reply] = await service.outputs.waitForOutputs('the reply', is.text('write_note'), {
      sessionId,
    });
    expect(reply.text).toBe('write_note: 1\necho: b\nwrite_note: 2');
    const after = await service.journal(sessionId);
    expect(after.at(-1)!.type).toBe('TurnCompleted');
  });

  it('S3 restarting twice more refreshes each time with a newer seq; nothing runs twice', async () => {
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    await service.send(userMessage(conversation, '!write_note {"text":"patience"}'));
    const [request] = await service.outputs.waitForOutputs('the request', is.request(), {
      sessionId,
    });

    const seqs: number[] = [request.seq];
    for (let round = 1; round <= 3; round += 1) {
      await service.restart(round === 2 ? 'SIGKILL' : 'SIGTERM');
      const refreshes = await service.outputs.waitForOutputs(
        `refresh ${round}`,
        is.update('RefreshedAfterRestart', 'call_2_1'),
        { sessionId, count: round },
      );
      seqs.push(refreshes[round - 1].seq);
    }
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);

    // A binding that lost its record asks again: the recovered session re-announces.
    await service.send(join(conversation));
    await service.outputs.waitForOutputs(
      'the re-announcement',
      is.update('RefreshedAfterRestart'),
      {
        sessionId,
        count: 4,
      },
    );

    await service.send(response(conversation, 'call_2_1', 'approve_once'));
    await service.outputs.waitForOutputs('the reply', is.text('write_note: 1'), { sessionId });
    const journal = await service.journal(sessionId);
    expect(journal.filter((e) => e.type === 'SessionRecovered')).toHaveLength(3);
    expect(journal.filter((e) => e.type === 'ToolExecutionStarted')).toHaveLength(1);
    expect(journal.filter((e) => e.type === 'ToolCallRecorded')).toHaveLength(1);

    // No orphaned state: the next restart finds nothing to recover for this session.
    await service.restart();
    await service.send(userMessage(conversation, 'still here?'));
    await service.outputs.waitForOutputs('the reply', is.text('You said: still here?'), {
      sessionId,
    });
    const final = await service.journal(sessionId);
    expect(final.filter((e) => e.type === 'SessionRecovered')).toHaveLength(3);
    // Three restarts and their waits: 19 s on a quiet two-core machine, near jest's 60 s
    // default on a loaded one.
  }, 120_000);
});
