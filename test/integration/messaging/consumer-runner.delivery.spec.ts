import { jetstream } from '@nats-io/jetstream';
import { ConsumerRunner, type ConsumerOutcome, type DeliveredMessage } from '@tollgate/messaging';
import { waitFor } from '../../support/wait-for';
import { holdsFor, MessagingScope, silentLogger } from './messaging-scope';

function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('ConsumerRunner delivery', () => {
  let scope: MessagingScope;

  beforeAll(async () => {
    scope = await MessagingScope.open('msgrun');
  });
  afterAll(async () => {
    await scope.close();
  });

  it('splits the work of one durable between two runners that together ack every message', async () => {
    const scenario = await scope.provisioned({ retention: 'workqueue' });
    const second = await scope.extraConnection();
    const handledBy = { a: [] as number[], b: [] as number[] };
    const handle = (who: 'a' | 'b') => async (message: DeliveredMessage) => {
      // Simulated work, so both runners hold messages at once and the split is visible.
      await new Promise((resolve) => setTimeout(resolve, 5));
      handledBy[who].push(message.streamSeq);
    };
    await scope.runner(scenario, handle('a'), { maxInFlight: 4 });
    await scope.runner(scenario, handle('b'), {
      maxInFlight: 4,
      js: jetstream(second.nc),
    });

    const total = 60;
    for (let i = 0; i < total; i += 1) {
      await scope.publisher.publish(scenario.subject(`s${i}.message`), { i }, { msgId: `m${i}` });
    }

    await waitFor('every message handled', () => handledBy.a.length + handledBy.b.length >= total);
    const all = [...handledBy.a, ...handledBy.b].sort((x, y) => x - y);
    expect(handledBy.a.length).toBeGreaterThan(0);
    expect(handledBy.b.length).toBeGreaterThan(0);
    expect(all).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    const info = await waitFor('every ack recorded', async () => {
      const ci = await scope.consumerInfo(scenario);
      return ci.num_ack_pending === 0 && ci.num_pending === 0 && ci;
    });
    expect(info.num_redelivered).toBe(0);
    // A work-queue stream drops what was acked.
    expect((await scope.jsm.streams.info(scenario.work.name)).state.messages).toBe(0);
  });

  it('keeps a long handler’s message with working(), and redelivers it elsewhere once that runner dies', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 1_000 });
    const doomed = await scope.extraConnection();
    const seenByA: DeliveredMessage[] = [];
    const seenByB: DeliveredMessage[] = [];
    const runnerA = new ConsumerRunner({
      js: jetstream(doomed.nc),
      stream: scenario.consumer.stream,
      durable: scenario.consumer.durable,
      service: 'test-service',
      dlqSubject: scenario.dlqSubject,
      logger: silentLogger,
      pullExpiresMs: 1_000,
      handler: (message) => {
        seenByA.push(message);
        return new Promise<void>(() => undefined); // never settles
      },
    });
    await runnerA.start();
    await scope.publisher.publish(scenario.subject('s1.message'), { n: 1 }, { msgId: 'slow-1' });
    await waitFor('runner A to take the message', () => seenByA.length === 1);
    await scope.runner(scenario, async (message) => {
      seenByB.push(message);
    });

    // Well past ack_wait: runner A's working() keeps the message from anyone else.
    await holdsFor('runner B to have nothing', () => seenByB.length === 0, { forMs: 2_200 });

    await doomed.close();
    await waitFor('runner B to get the message', () => seenByB.length === 1, { timeoutMs: 5_000 });
    expect(seenByB[0]).toMatchObject({ streamSeq: 1, deliveryCount: 2 });
    await waitFor(
      'the ack',
      async () => (await scope.consumerInfo(scenario)).num_ack_pending === 0,
    );
    await runnerA.drain(0);
    expect(seenByA).toHaveLength(1);
  });

  it('drain lets a handler already running finish and acks it, then stops pulling', async () => {
    const scenario = await scope.provisioned();
    const release = gate();
    const started: number[] = [];
    const finished: number[] = [];
    const outcomes: ConsumerOutcome[] = [];
    const runner = await scope.runner(
      scenario,
      async (message) => {
        started.push(message.streamSeq);
        await release.opened;
        finished.push(message.streamSeq);
      },
      { onOutcome: (outcome) => outcomes.push(outcome) },
    );
    await scope.publisher.publish(scenario.subject('s1.message'), { n: 1 }, { msgId: 'd-1' });
    await waitFor('the handler to start', () => started.length === 1);

    let drained = false;
    const draining = runner.drain(10_000).then(() => (drained = true));
    expect(runner.isRunning()).toBe(false);
    await holdsFor('drain to wait for the handler', () => !drained, { forMs: 300 });
    release.open();
    await draining;

    expect(finished).toEqual([1]);
    expect(outcomes).toEqual(['acked']);
    expect((await scope.consumerInfo(scenario)).num_ack_pending).toBe(0);
    await scope.publisher.publish(scenario.subject('s2.message'), { n: 2 }, { msgId: 'd-2' });
    await holdsFor('a drained runner to take nothing', () => started.length === 1, {
      forMs: 500,
    });
    expect((await scope.consumerInfo(scenario)).num_pending).toBe(1);
  });

  it('drain naks what is unfinished at the deadline so it is redelivered at once', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 30_000 });
    const outcomes: ConsumerOutcome[] = [];
    const stuck = await scope.runner(
      scenario,
      () => new Promise<void>(() => undefined), // never settles
      { onOutcome: (outcome) => outcomes.push(outcome) },
    );
    await scope.publisher.publish(scenario.subject('s1.message'), { n: 1 }, { msgId: 'x-1' });
    await waitFor('the message in flight', () => stuck.inFlightCount() === 1);

    const startedAt = Date.now();
    await stuck.drain(200);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    expect(outcomes).toEqual(['naked']);

    const redelivered: DeliveredMessage[] = [];
    await scope.runner(scenario, async (message) => {
      redelivered.push(message);
    });
    // Far sooner than the 30 s ack_wait: the nak handed it back. (nats-server 2.9 counts it
    // as undelivered again, deliveryCount 1, because the drained runner's pull was gone.)
    await waitFor('the redelivery', () => redelivered.length === 1, { timeoutMs: 5_000 });
    expect(redelivered[0]?.streamSeq).toBe(1);
    await waitFor('the ack', async () => {
      const info = await scope.consumerInfo(scenario);
      return info.num_ack_pending === 0 && info.num_pending === 0;
    });
  });
});
