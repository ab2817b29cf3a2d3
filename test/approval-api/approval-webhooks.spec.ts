import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApprovalApiSystem, approvedBy } from '../support/approval-api.fixture';
import { waitFor } from '../support/wait-for';

interface Received {
  readonly delivery: string | undefined;
  readonly signature: string | undefined;
  readonly body: string;
}

/**
 * A1 (webhooks): a decision is POSTed to the client's webhook, signed, and retried with a
 * growing delay until the receiver answers 2xx, with the same delivery id every time — by
 * whichever of two replicas claims it.
 */
describe('A1 — signed webhooks, retried until 2xx (process, two replicas)', () => {
  let system: ApprovalApiSystem;
  let server: Server;
  const received: Received[] = [];
  let failuresLeft = 2;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          delivery: req.headers['tollgate-delivery'] as string | undefined,
          signature: req.headers['tollgate-signature'] as string | undefined,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.statusCode = failuresLeft-- > 0 ? 503 : 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    system = await ApprovalApiSystem.start('a1hooks', {
      replicas: 2,
      env: { TOLLGATE_WEBHOOK_RETRY_BASE_MS: '100' },
    });
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('A1 a decided approval is POSTed signed to the webhook and retried with the same delivery id until 2xx', async () => {
    const { port } = server.address() as AddressInfo;
    const { client, key } = await system.createClient({
      webhookUrl: `http://127.0.0.1:${port}/tollgate`,
    });
    const secret = client.webhookSecret ?? '';
    const created = await system.create(key, { tool: 'deploy', arguments: { env: 'prod' } });
    const request = await system.publishedRequest(created.body.id as string);
    await system.decide(request, 'approved', approvedBy('U_ALICE', 'Alice'));

    await waitFor('three attempts, the last answered 204', () => received.length >= 3, {
      timeoutMs: 15_000,
    });
    const ids = new Set(received.map((r) => r.delivery));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^[0-9a-f-]{36}$/);
    for (const attempt of received) {
      const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(attempt.signature ?? '');
      expect(match).not.toBeNull();
      const [, t, v1] = match ?? [];
      const expected = createHmac('sha256', secret).update(`${t}.${attempt.body}`).digest('hex');
      expect(v1).toBe(expected);
      expect(Math.abs(Number(t) - Date.now() / 1_000)).toBeLessThan(60);
      expect(JSON.parse(attempt.body)).toMatchObject({
        id: created.body.id,
        status: 'approved',
        decision: { option: 'approve_once', by: { id: 'U_ALICE', displayName: 'Alice' } },
      });
    }
    await waitFor('the delivery to be recorded as delivered', async () => {
      const rows = await system.query<{ attempts: number; delivered_at: Date | null }>(
        'SELECT attempts, delivered_at FROM webhook_deliveries',
      );
      return rows.length === 1 && rows[0]?.delivered_at !== null && rows[0]?.attempts === 3;
    });
  });
});
