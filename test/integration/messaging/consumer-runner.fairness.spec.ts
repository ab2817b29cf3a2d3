import { DLQ_HEADERS, type KeyFairness } from '@tollgate/messaging';
import { waitFor } from '../../support/wait-for';
import { MessagingScope } from './messaging-scope';
import { recorder } from './runner-recorder';

describe('X8 — one key cannot hold a consumer for everyone', () => {
  let scope: MessagingScope;

  beforeAll(async () => {
    scope = await MessagingScope.open('fair');
  });
  afterAll(async () => {
    await scope.close();
  });

  const fairness = (overrides: Partial<KeyFairness> = {}): KeyFairness => ({
    // Subjects are `<prefix>.work.<key>.<n>`.
    keyOf: (subject) => subject.split('.')[2],
    maxRunningPerKey: 1,
    maxHeldPerKey: 4,
    maxHeld: 32,
    deferMs: 200,
    maxDeferredPerKey: 1_000,
    ...overrides,
  });

  it('X8 a message of another key runs at once behind a slow key\u2019s backlog', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 5_000, retention: 'workqueue' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const run = recorder(async (message) => {
      if (message.subject.includes('.slow.')) await gate;
    });
    await scope.runner(scenario, run.handler, { onOutcome: run.onOutcome, fairness: fairness() });

    for (let n = 0; n < 200; n += 1) {
      await scope.publisher.publish(scenario.subject(`slow.${n}`), { n }, { msgId: `s-${n}` });
    }
    await scope.publisher.publish(scenario.subject('other.0'), { n: 0 }, { msgId: 'o-0' });

    await waitFor('the other key handled', () =>
      run.outcomes.some((o) => o.outcome === 'acked' && o.subject.includes('.other.')),
    );
    // Only one slow message ever started while the gate was closed.
    expect(run.deliveries.filter((d) => d.subject.includes('.slow.'))).toHaveLength(1);
    release();
    await waitFor(
      'the whole slow backlog',
      () => (run.outcomes.filter((o) => o.outcome === 'acked').length === 201 ? true : undefined),
      { timeoutMs: 30_000 },
    );
  });

  it('X8 a key past its deferred limit has the excess dead-lettered, so it cannot fill max_ack_pending', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 5_000, retention: 'workqueue' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const run = recorder(async () => gate);
    await scope.runner(scenario, run.handler, {
      onOutcome: run.onOutcome,
      fairness: fairness({ maxDeferredPerKey: 10, deferMs: 60_000 }),
    });
    for (let n = 0; n < 40; n += 1) {
      await scope.publisher.publish(scenario.subject(`flood.${n}`), { n }, { msgId: `f-${n}` });
    }
    // 4 held (1 running), 10 deferred, the other 26 dead-lettered.
    const letters = await waitFor('the excess in the DLQ', async () => {
      const stored = await scope.storedMessages(scenario.dlq.name);
      return stored.length === 26 ? stored : undefined;
    });
    expect(letters[0]?.headers.get(DLQ_HEADERS.reason)).toBe(
      'backlog_limit: more than 10 messages of flood waiting',
    );
    const info = await scope.consumerInfo(scenario);
    expect(info.num_ack_pending).toBe(14);
    release();
  });
});
