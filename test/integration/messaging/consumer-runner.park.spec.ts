import { waitFor } from '../../support/wait-for';
import { MessagingScope } from './messaging-scope';
import { recorder } from './runner-recorder';

/**
 * A handler waiting on something no other message needs (its platform's rate-limit bucket)
 * parks: its slot and its place among the held messages go to other work meanwhile.
 */
describe('D4 — a parked message holds no consumer slot', () => {
  let scope: MessagingScope;

  beforeAll(async () => {
    scope = await MessagingScope.open('park');
  });
  afterAll(async () => {
    await scope.close();
  });

  it('D4 40 messages parked on one closed gate, with 2 slots and 4 held: a later message is handled at once, then all of them', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 5_000, retention: 'workqueue' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const run = recorder(async (message) => {
      if (message.subject.includes('.busy.')) await message.park!(gate);
    });
    await scope.runner(scenario, run.handler, {
      onOutcome: run.onOutcome,
      maxInFlight: 2,
      maxHeld: 4,
    });

    for (let n = 0; n < 40; n += 1) {
      await scope.publisher.publish(scenario.subject(`busy.${n}`), { n }, { msgId: `b-${n}` });
    }
    await waitFor('every busy message parked', () =>
      run.deliveries.filter((d) => d.subject.includes('.busy.')).length === 40 ? true : undefined,
    );
    await scope.publisher.publish(scenario.subject('other.0'), { n: 0 }, { msgId: 'o-0' });
    await waitFor('the other message handled while the gate is closed', () =>
      run.outcomes.some((o) => o.outcome === 'acked' && o.subject.includes('.other.')),
    );
    expect(run.outcomes.filter((o) => o.subject.includes('.busy.'))).toEqual([]);

    release();
    await waitFor('every busy message acked', () =>
      run.outcomes.filter((o) => o.outcome === 'acked').length === 41 ? true : undefined,
    );
    expect(run.deliveries).toHaveLength(41);
  });

  it('D4 past maxParked a park waits in its slot, so parked messages stay bounded', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 5_000, retention: 'workqueue' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const run = recorder(async (message) => {
      await message.park!(gate);
    });
    const runner = await scope.runner(scenario, run.handler, {
      onOutcome: run.onOutcome,
      maxInFlight: 2,
      maxHeld: 2,
      maxParked: 5,
    });
    for (let n = 0; n < 20; n += 1) {
      await scope.publisher.publish(scenario.subject(`w.${n}`), { n }, { msgId: `w-${n}` });
    }
    // 5 parked, then 2 waiting in their slots: 7 started, and no more.
    await waitFor('seven handlers started', () => (run.deliveries.length === 7 ? true : undefined));
    expect(runner.inFlightCount()).toBe(7);
    release();
    await waitFor('all twenty acked', () =>
      run.outcomes.filter((o) => o.outcome === 'acked').length === 20 ? true : undefined,
    );
  });
});
