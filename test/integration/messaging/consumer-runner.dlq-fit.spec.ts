import { DLQ_HEADERS, InvalidPayload } from '@tollgate/messaging';
import { OwnNatsServer } from '../../support/own-nats-server';
import { waitFor } from '../../support/wait-for';
import { MessagingScope } from './messaging-scope';
import { recorder } from './runner-recorder';

const MAX_PAYLOAD = 8 * 1024;

describe('X8 — a dead-lettered copy always fits max_payload', () => {
  let server: OwnNatsServer;
  let scope: MessagingScope;

  beforeAll(async () => {
    server = await OwnNatsServer.start({ maxPayloadBytes: MAX_PAYLOAD });
    scope = await MessagingScope.open('dlqfit', { servers: server.url });
  });

  afterAll(async () => {
    await scope?.close();
    await server?.dispose();
  });

  it('X8 a message just under max_payload is dead-lettered once, cut to fit, with its size and position', async () => {
    expect(scope.connection.nc.info?.max_payload).toBe(MAX_PAYLOAD);
    const scenario = await scope.provisioned({ ackWaitMs: 2_000, retention: 'workqueue' });
    const run = recorder(() => Promise.reject(new InvalidPayload('poison')));
    await scope.runner(scenario, run.handler, {
      onOutcome: run.onOutcome,
      maxPayloadBytes: () => scope.connection.nc.info?.max_payload,
    });

    // As big as the server takes with its own Nats-Msg-Id header: no room for three more.
    const body = new Uint8Array(MAX_PAYLOAD - 200).fill(0x61);
    await scope.publisher.publish(scenario.subject('s1.big'), body, { msgId: 'big-1' });
    const small = new TextEncoder().encode('{"small":true}');
    await scope.publisher.publish(scenario.subject('s2.small'), small, { msgId: 'small-1' });

    const copies = await waitFor('both copies in the DLQ', async () => {
      const stored = await scope.storedMessages(scenario.dlq.name);
      return stored.length === 2 ? stored : undefined;
    });
    expect(run.outcomes.map((o) => o.outcome)).toEqual(['dead_lettered', 'dead_lettered']);
    const big = copies.find((c) => c.headers.get(DLQ_HEADERS.originalSubject).endsWith('.big'));
    expect(big?.headers.get(DLQ_HEADERS.reason)).toBe('invalid_payload: poison');
    expect(big?.headers.get(DLQ_HEADERS.truncatedFrom)).toBe(String(body.length));
    expect(big?.headers.get(DLQ_HEADERS.originalStream)).toBe(scenario.work.name);
    expect(big?.headers.get(DLQ_HEADERS.originalSeq)).toBe('1');
    expect(big?.data.length).toBeGreaterThan(MAX_PAYLOAD / 2);
    expect(body.length).toBeGreaterThan(big?.data.length ?? Infinity);
    expect(big?.data).toBe('a'.repeat(big?.data.length ?? 0));
    // A copy that fits is untouched and unmarked.
    const plain = copies.find((c) => c.headers.get(DLQ_HEADERS.originalSubject).endsWith('.small'));
    expect(plain?.data).toBe('{"small":true}');
    expect(plain?.headers.has(DLQ_HEADERS.truncatedFrom)).toBe(false);
    // Terminated, not retried: nothing is left pending on the work queue.
    await waitFor('the work queue to empty', async () => {
      const info = await scope.consumerInfo(scenario);
      return info.num_ack_pending === 0 && info.num_pending === 0;
    });
  });
});
