import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookDelivery {
  readonly path: string;
  readonly delivery: string | undefined;
  readonly signature: string | undefined;
  readonly body: string;
}

/**
 * A client's webhook endpoint, as an agent would run it: records every POST and answers 204.
 * Each client gets its own path, so one receiver serves a whole suite.
 */
export class WebhookReceiver {
  readonly received: WebhookDelivery[] = [];

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        receiver.received.push({
          path: req.url ?? '',
          delivery: req.headers['tollgate-delivery'] as string | undefined,
          signature: req.headers['tollgate-signature'] as string | undefined,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}${path}`;
  }

  /** What arrived at `path` about the approval `id` (parsed bodies). */
  about(path: string, id: string): (WebhookDelivery & { approval: Record<string, unknown> })[] {
    return this.received
      .filter((r) => r.path === path)
      .map((r) => ({ ...r, approval: JSON.parse(r.body) as Record<string, unknown> }))
      .filter((r) => r.approval.id === id);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Checks a delivery as http-api.md tells an agent to: `t=<unix s>,v1=<hex HMAC-SHA256(secret,
 * "<t>.<body>")>`, fresh within five minutes, compared in constant time.
 */
export function signatureValid(delivery: WebhookDelivery, secret: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(delivery.signature ?? '');
  if (match === null) return false;
  const [, t, v1] = match;
  const expected = createHmac('sha256', secret).update(`${t}.${delivery.body}`).digest();
  const fresh = Math.abs(Date.now() / 1_000 - Number(t)) < 300;
  return fresh && timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}
