import { TransientFailure } from '@tollgate/messaging';
import { waitFor } from '../../support/wait-for';
import { MessagingScope } from './messaging-scope';
import { expectSettledForGood, recorder } from './runner-recorder';

describe('ConsumerRunner retries', () => {
  let scope: MessagingScope;

  beforeAll(async () => {
    scope = await MessagingScope.open('msgretry');
  });
  afterAll(async () => {
    await scope.close();
  });

  it('retries a transient failure with a growing delay until it succeeds', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 1_500 });
    const run = recorder(async (message) => {
      if (message.deliveryCount <= 3) throw new TransientFailure('platform_unavailable: 503');
    });
    await scope.runner(scenario, run.handler, { retryBaseMs: 200, onOutcome: run.onOutcome });

    await scope.publisher.publish(scenario.subject('s1.message'), { n: 1 }, { msgId: 't-1' });

    await waitFor('the fourth delivery to be acked', () => run.outcomes.length === 4);
    expect(run.deliveries.map((d) => d.deliveryCount)).toEqual([1, 2, 3, 4]);
    expect(run.outcomes.map((o) => o.outcome)).toEqual(['naked', 'naked', 'naked', 'acked']);
    const gaps = run.deliveries.slice(1).map((d, i) => d.at - run.deliveries[i].at);
    // Naks of about 200, 400 and 800 ms (+ up to 10 % jitter).
    expect(gaps[0]).toBeGreaterThanOrEqual(190);
    expect(gaps[1]).toBeGreaterThan(gaps[0]);
    expect(gaps[2]).toBeGreaterThan(gaps[1]);
    expect(gaps[2]).toBeGreaterThanOrEqual(790);
    await expectSettledForGood(scope, scenario, () => run.deliveries.length);
  });

  it('waits at least the retry-after a transient failure asks for', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 5_000 });
    const run = recorder(async (message) => {
      if (message.deliveryCount === 1) {
        throw new TransientFailure('rate_limited: 429', { retryAfterMs: 600 });
      }
    });
    await scope.runner(scenario, run.handler, { retryBaseMs: 10, onOutcome: run.onOutcome });

    await scope.publisher.publish(scenario.subject('s1.message'), { n: 1 }, { msgId: 'r-1' });

    await waitFor('the retry to be acked', () => run.outcomes.length === 2);
    expect(run.deliveries[1].at - run.deliveries[0].at).toBeGreaterThanOrEqual(590);
  });

  it('naks and retries a handler that throws synchronously, rejects with a non-error or throws an unknown error', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 1_000 });
    // Not async, so the first case really throws before returning any promise.
    const run = recorder((message) => {
      if (message.deliveryCount > 1) return Promise.resolve();
      if (message.subject.endsWith('sync')) throw new Error('thrown before any await');
      if (message.subject.endsWith('string')) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the case under test
        return Promise.reject('a bare string');
      }
      return Promise.reject(new RangeError('unexpected'));
    });
    await scope.runner(scenario, run.handler, { onOutcome: run.onOutcome });

    for (const kind of ['sync', 'string', 'unknown']) {
      await scope.publisher.publish(scenario.subject(`s1.${kind}`), {}, { msgId: kind });
    }

    await waitFor('every message acked on its second delivery', () => {
      const acked = run.outcomes.filter((o) => o.outcome === 'acked');
      return acked.length === 3;
    });
    for (const kind of ['sync', 'string', 'unknown']) {
      const subject = scenario.subject(`s1.${kind}`);
      expect(run.outcomes.filter((o) => o.subject === subject).map((o) => o.outcome)).toEqual([
        'naked',
        'acked',
      ]);
    }
    await expectSettledForGood(scope, scenario, () => run.deliveries.length);
  });
});
