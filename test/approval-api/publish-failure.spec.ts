import { ApprovalApiSystem } from '../support/approval-api.fixture';
import { OwnNatsServer } from '../support/own-nats-server';
import { waitFor } from '../support/wait-for';

/**
 * A1: 202 means the request is on the command stream. With NATS down the create answers 503
 * and the approval stays unpublished; the same Idempotency-Key and body, once NATS is back,
 * publish that same approval.
 */
describe('A1 — a create whose publish fails (process, own NATS)', () => {
  let nats: OwnNatsServer;
  let system: ApprovalApiSystem;

  beforeAll(async () => {
    nats = await OwnNatsServer.start();
    system = await ApprovalApiSystem.start('a1pub', { natsUrl: nats.url });
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await nats?.dispose();
  });

  it('A1 answers 503 when JetStream does not take the request, and the same Idempotency-Key retried publishes it', async () => {
    const { key } = await system.createClient();
    const body = { tool: 'Bash', arguments: { command: 'terraform apply' } };
    await nats.stop();
    const refused = await system.create(key, body, 'apply-1');
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe('unavailable');
    const stored = await system.query<{ id: string; status: string }>(
      'SELECT id, status FROM approvals',
    );
    expect(stored).toEqual([{ id: expect.any(String), status: 'pending' }]);

    await nats.restart();
    await system.replicas[0].waitUntilReady(20_000);
    const retried = await waitFor('the retry to be published', async () => {
      const answer = await system.create(key, body, 'apply-1');
      return answer.status === 200 ? answer : undefined;
    });
    expect(retried.body.id).toBe(stored[0]?.id);
    const request = await system.publishedRequest(stored[0].id);
    expect(request.arguments).toEqual({ command: 'terraform apply' });
    expect(await system.commandCount()).toBe(1);
  });
});
