import { jetstreamManager } from '@nats-io/jetstream';
import { deriveSessionId, streamNames } from '@tollgate/protocol';
import { freshConversation, userMessage } from '../support/commands';
import { withClient } from '../support/database';
import { is, OutputLog } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { waitFor } from '../support/wait-for';

/**
 * (process, crash) Outputs committed with their events but not yet published when the
 * process dies are published after restart, each exactly once. The output stream is taken
 * away so the relay cannot publish; the commands still flow, and the journal commits.
 */
describe('outbox relay across a crash (process)', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('outbox');
  });

  afterAll(async () => {
    await service.dispose();
  });

  const unsent = () =>
    withClient(async (client) => {
      const result = await client.query<{ count: string }>(
        `SELECT count(*) FROM "${service.database.schema}".outbox WHERE sent_at IS NULL`,
      );
      return Number(result.rows[0].count);
    });

  it('S10 a crash between journal commit and publish: every output is published once after restart', async () => {
    const warmup = freshConversation();
    await service.send(userMessage(warmup, 'hello'));
    await service.outputs.waitForOutputs('the warm-up reply', is.text('You said: hello'), {
      sessionId: deriveSessionId(warmup),
    });
    await service.outputs.close();

    const jsm = await jetstreamManager(service.nc);
    await jsm.streams.delete(streamNames(service.prefix).outputs);

    const conversations = [freshConversation(), freshConversation(), freshConversation()];
    for (const conversation of conversations) {
      await service.send(userMessage(conversation, '!echo {"text":"x"}\n!write_note {"text":"y"}'));
    }
    // Committed (journal and outbox) but not published: one request per conversation.
    await waitFor('three committed, unsent outputs', async () => {
      const count = await unsent();
      if (count !== 3) throw new Error(`${count} unsent`);
      return true;
    });

    await service.stop('SIGKILL');
    await service.start();
    const log = await OutputLog.open(service.nc, service.prefix);
    try {
      await waitFor('the outbox to drain', async () => ((await unsent()) === 0 ? true : undefined));
      for (const conversation of conversations) {
        const sessionId = deriveSessionId(conversation);
        await log.waitForOutputs('the request', is.request('call_2_2'), { sessionId });
      }
      // The committed requests are published once each (the restart also refreshes them,
      // as it must for parked sessions), and no output id appears twice.
      await log.waitForOutputs('the refreshes', is.update('RefreshedAfterRestart'), { count: 3 });
      const requests = log.seen.filter((s) => s.output.type === 'ToolInteractionRequest');
      expect(requests).toHaveLength(3);
      const ids = log.seen.map((s) => s.msgId);
      expect(ids).toHaveLength(6);
      expect(new Set(ids).size).toBe(6);
      expect(log.seen.every((s) => s.msgId === s.output.id)).toBe(true);
    } finally {
      await log.close();
    }
  });
});
