import { waitFor } from '../../support/wait-for';
import { holdsFor, MessagingScope } from './messaging-scope';
import { expectSettledForGood, recorder } from './runner-recorder';

describe('ConsumerRunner handler deadline', () => {
  let scope: MessagingScope;

  beforeAll(async () => {
    scope = await MessagingScope.open('msgdeadline');
  });
  afterAll(async () => {
    await scope.close();
  });
  let afterCleanup = (): void => undefined;
  afterEach(() => afterCleanup());

  it('R5 a handler that hangs past its deadline is abandoned, its message naked and counted; its late result settles nothing', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 1_000 });
    let releaseHung!: (value: 'ok' | 'fail') => void;
    const hung = new Promise<'ok' | 'fail'>((resolve) => (releaseHung = resolve));
    const run = recorder(async (message) => {
      if (message.deliveryCount > 1 || !message.subject.endsWith('.hang')) return;
      // Hangs while asking JetStream for more time, as a stuck handler in working() would.
      const keepAlive = setInterval(() => message.working(), 100);
      try {
        if ((await hung) === 'fail') throw new Error('late failure');
      } finally {
        clearInterval(keepAlive);
      }
    });
    const abandoned: string[] = [];
    await scope.runner(scenario, run.handler, {
      maxInFlight: 1,
      handlerTimeoutMs: 1_500,
      retryBaseMs: 50,
      onOutcome: run.onOutcome,
      onAbandoned: (subject) => abandoned.push(subject),
    });

    afterCleanup = () => releaseHung('ok');
    const subject = scenario.subject('s1.hang');
    const startedAt = Date.now();
    await scope.publisher.publish(subject, { n: 1 }, { msgId: 'hang-1' });
    // The slot the hung handler held is free again: the next message runs.
    await scope.publisher.publish(scenario.subject('s2.next'), { n: 2 }, { msgId: 'next-1' });

    await waitFor('the retry to be acked', () =>
      run.outcomes.some((o) => o.subject === subject && o.outcome === 'acked'),
    );
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_500);
    expect(abandoned).toEqual([subject]);
    expect(run.outcomes.filter((o) => o.subject === subject).map((o) => o.outcome)).toEqual([
      'naked',
      'acked',
    ]);
    await waitFor('the other message acked', () =>
      run.outcomes.some((o) => o.subject.endsWith('s2.next') && o.outcome === 'acked'),
    );

    // The abandoned handler finishes (with a failure) long after: nothing is settled again.
    const outcomesBefore = run.outcomes.length;
    releaseHung('fail');
    await holdsFor('no further outcome', () => run.outcomes.length === outcomesBefore, {
      forMs: 500,
    });
    expect(run.deliveries.filter((d) => d.subject === subject)).toHaveLength(2);
    await expectSettledForGood(scope, scenario, () => run.deliveries.length);
  });

  it('R5 a handler within its deadline is not abandoned', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 1_000 });
    const run = recorder(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    const abandoned: string[] = [];
    await scope.runner(scenario, run.handler, {
      handlerTimeoutMs: 2_000,
      onOutcome: run.onOutcome,
      onAbandoned: (subject) => abandoned.push(subject),
    });
    await scope.publisher.publish(scenario.subject('s1.slow'), {}, { msgId: 'slow-1' });
    await waitFor('the message acked', () => run.outcomes.length === 1);
    expect(run.outcomes[0].outcome).toBe('acked');
    expect(abandoned).toEqual([]);
  });
});
