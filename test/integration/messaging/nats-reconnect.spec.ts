import { connectNats, type DeliveredMessage } from '@tollgate/messaging';
import { waitFor } from '../../support/wait-for';
import { holdsFor, MessagingScope, silentLogger } from './messaging-scope';
import { OwnNatsServer } from '../../support/own-nats-server';

describe('a NATS restart', () => {
  let server: OwnNatsServer;
  let scope: MessagingScope;

  beforeAll(async () => {
    server = await OwnNatsServer.start();
    scope = await MessagingScope.open('msgreco', { servers: server.url, reconnectTimeWaitMs: 100 });
  });
  afterAll(async () => {
    await scope?.close();
    await server?.dispose();
  });

  it('turns readiness off and on again, and the same runner consumes what is published after', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 2_000 });
    const handled: DeliveredMessage[] = [];
    const runner = await scope.runner(scenario, async (message) => {
      handled.push(message);
    });
    const nc = scope.connection.nc;
    await scope.publisher.publish(scenario.subject('s1.message'), { n: 1 }, { msgId: 'before' });
    await waitFor('the message published before the restart', () => handled.length === 1);
    expect(scope.connection.isConnected()).toBe(true);

    await server.stop();
    await waitFor('readiness to go false', () => !scope.connection.isConnected());
    // Down for longer than a pull's expiry and its missed heartbeats, so the runner's pulls
    // fail meanwhile and it has to pull again afterwards.
    await holdsFor('readiness to stay false', () => !scope.connection.isConnected(), {
      forMs: 2_500,
    });

    await server.restart();
    await waitFor('readiness to come back', () => scope.connection.isConnected(), {
      timeoutMs: 15_000,
    });
    // JetStream may need a moment after the restart before it stores again.
    await waitFor('the publish after the restart', () =>
      scope.publisher
        .publish(scenario.subject('s2.message'), { n: 2 }, { msgId: 'after', timeoutMs: 1_000 })
        .then(() => true),
    );

    await waitFor('the runner to consume it', () => handled.length === 2, { timeoutMs: 15_000 });
    expect(handled.map((m) => m.subject)).toEqual([
      scenario.subject('s1.message'),
      scenario.subject('s2.message'),
    ]);
    expect(runner.isRunning()).toBe(true);
    expect(scope.connection.nc).toBe(nc);
    await waitFor(
      'the ack',
      async () => (await scope.consumerInfo(scenario)).num_ack_pending === 0,
    );
  });

  it('lets a service that starts before NATS wait for it instead of failing', async () => {
    await server.stop();
    let settled = false;
    const connecting = connectNats({
      servers: server.url,
      name: 'msgreco-early',
      logger: silentLogger,
      reconnectTimeWaitMs: 100,
    }).finally(() => (settled = true));

    await holdsFor('the connect to keep trying', () => !settled, { forMs: 1_000 });
    await server.restart();
    const early = await connecting;

    expect(early.isConnected()).toBe(true);
    await early.close();
    expect(early.isConnected()).toBe(false);
  });
});
