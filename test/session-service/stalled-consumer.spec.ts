import { deriveSessionId } from '@tollgate/protocol';
import { freshConversation, userMessage } from '../support/commands';
import { withClient } from '../support/database';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { waitFor } from '../support/wait-for';

const DURABLE_CHECK = 'consumer-progress:session-service';

describe('X8 — a consumer that makes no progress is not ready', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('stall', { TOLLGATE_STALL_AFTER_MS: '2000' });
  });

  afterAll(async () => {
    await service.dispose();
  });

  const schema = () => `"${service.database.schema}"`;

  async function ready(): Promise<{ status: number; checks: Record<string, boolean> }> {
    const response = await fetch(service.process?.url('/health/ready') ?? '');
    const body = (await response.json()) as { checks: Record<string, boolean> };
    return { status: response.status, checks: body.checks };
  }

  async function stalledGauge(): Promise<string | undefined> {
    const text = await (await fetch(service.process?.url('/metrics') ?? '')).text();
    return text
      .split('\n')
      .find((line) => line.startsWith('tollgate_consumer_stalled{durable="session-service"}'));
  }

  it('X8 every delivery failing transiently turns /health/ready 503 naming the consumer, and the gauge to 1; it recovers once messages settle', async () => {
    expect((await ready()).status).toBe(200);
    // 40001 (serialization failure) is transient: the command is retried, never settled.
    await withClient((client) =>
      client.query(`
        CREATE FUNCTION ${schema()}.always_conflict() RETURNS trigger AS $$
        BEGIN
          RAISE EXCEPTION 'conflict forced by the test' USING ERRCODE = '40001';
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER always_conflict BEFORE INSERT ON ${schema()}.session_events
          FOR EACH ROW EXECUTE FUNCTION ${schema()}.always_conflict();`),
    );
    const conversation = freshConversation('slack');
    await service.send(userMessage(conversation, 'stuck?'));

    const stalled = await waitFor('readiness to report the stalled consumer', async () => {
      const report = await ready();
      return report.status === 503 ? report : undefined;
    });
    expect(stalled.checks[DURABLE_CHECK]).toBe(false);
    expect(stalled.checks.nats).toBe(true);
    expect(stalled.checks.database).not.toBe(false);
    expect(await stalledGauge()).toBe('tollgate_consumer_stalled{durable="session-service"} 1');

    await withClient((client) =>
      client.query(`DROP TRIGGER always_conflict ON ${schema()}.session_events`),
    );
    await service.outputs.waitForOutputs(
      'the reply once writes succeed',
      is.text('You said: stuck?'),
      {
        sessionId: deriveSessionId(conversation),
      },
    );
    await waitFor('readiness to recover', async () => (await ready()).status === 200);
    expect(await stalledGauge()).toBe('tollgate_consumer_stalled{durable="session-service"} 0');
  });
});
