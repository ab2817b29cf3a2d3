import { deriveSessionId } from '@tollgate/protocol';
import { leaderApplicationName } from '../../apps/session-service/src/leadership/leader-lock';
import { freshConversation, response, userMessage } from '../support/commands';
import { withClient } from '../support/database';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';

const DRAIN_MS = 3_000;

/** (process) SIGTERM with approvals outstanding, then a fresh process picks them up. */
describe('session service shutdown (process)', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('shutdown', {
      TOLLGATE_DRAIN_MS: String(DRAIN_MS),
      LOG_LEVEL: 'info',
    });
  });

  afterAll(async () => {
    await service.dispose();
  });

  it('S11 stopping with approvals outstanding exits 0 promptly with no open handles; nothing about the approvals is lost', async () => {
    const parked = Array.from({ length: 3 }, (_, i) => {
      const conversation = freshConversation();
      return { conversation, sessionId: deriveSessionId(conversation), text: `note ${i}` };
    });
    await Promise.all(
      parked.map((p) =>
        service.send(userMessage(p.conversation, `!write_note {"text":"${p.text}"}`)),
      ),
    );
    const requests = await Promise.all(
      parked.map(async (p) => {
        const [request] = await service.outputs.waitForOutputs('the request', is.request(), {
          sessionId: p.sessionId,
        });
        return request;
      }),
    );
    const journalsBefore = await Promise.all(parked.map((p) => service.journal(p.sessionId)));

    const stopped = service.process!;
    const stopping = Date.now();
    const exit = await service.stop('SIGTERM');
    const took = Date.now() - stopping;
    expect(exit).toEqual({ code: 0, signal: null });
    // Well inside the deadline: nothing waited for the drain timer or the forced exit.
    expect(took).toBeLessThan(DRAIN_MS / 2);
    const log = stopped.output();
    expect(log).not.toContain('shutdown overran its deadline');
    expect(log).not.toContain('naked unfinished messages');
    expect(log).toContain('released the leader lock');
    expect(log).toContain('"msg":"stopped"');
    const leaderConnections = await withClient(async (client) => {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1`,
        [leaderApplicationName(service.database.schema)],
      );
      return rows[0].n;
    });
    expect(leaderConnections).toBe(0);
    // Stopping journals nothing: every approval is exactly as it was.
    expect(await Promise.all(parked.map((p) => service.journal(p.sessionId)))).toEqual(
      journalsBefore,
    );

    await service.start();
    for (const [i, p] of parked.entries()) {
      const [refresh] = await service.outputs.waitForOutputs(
        `the refresh of ${p.text}`,
        is.update('RefreshedAfterRestart', requests[i].callId),
        { sessionId: p.sessionId },
      );
      expect(refresh.request).toEqual(requests[i]);
    }
    const [first] = parked;
    await service.send(response(first.conversation, requests[0].callId, 'approve_once'));
    await service.outputs.waitForOutputs('the reply', is.text('write_note: 1'), {
      sessionId: first.sessionId,
    });
    expect((await service.journal(first.sessionId)).at(-1)!.type).toBe('TurnCompleted');
  });
});
