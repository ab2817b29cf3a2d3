import {
  DLQ_HEADERS,
  InvalidPayload,
  PermanentFailure,
  TransientFailure,
} from '@tollgate/messaging';
import { waitFor } from '../../support/wait-for';
import { MessagingScope } from './messaging-scope';
import { expectSettledForGood, recorder } from './runner-recorder';

describe('ConsumerRunner dead-lettering', () => {
  let scope: MessagingScope;

  beforeAll(async () => {
    scope = await MessagingScope.open('msgdlq');
  });
  afterAll(async () => {
    await scope.close();
  });

  it('dead-letters a permanent failure and an unparsable payload at once, with their reasons, and terminates them', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 1_000 });
    const run = recorder(async (message) => {
      let payload: unknown;
      try {
        payload = JSON.parse(new TextDecoder().decode(message.data));
      } catch {
        throw new InvalidPayload('not JSON');
      }
      if ((payload as { refuse?: boolean }).refuse) {
        throw new PermanentFailure('platform_rejected: 403 channel_not_found');
      }
    });
    await scope.runner(scenario, run.handler, { onOutcome: run.onOutcome });

    await scope.publisher.publish(
      scenario.subject('s1.refused'),
      { refuse: true },
      { msgId: 'p-1', headers: { 'Tollgate-Session': 's1' } },
    );
    await scope.publisher.publish(scenario.subject('s2.garbled'), new TextEncoder().encode('{no'), {
      msgId: 'p-2',
    });

    await waitFor('both dead-lettered', () => run.outcomes.length === 2);
    expect(run.outcomes.map((o) => o.outcome)).toEqual(['dead_lettered', 'dead_lettered']);
    const copies = await waitFor('both DLQ copies', async () => {
      const stored = await scope.storedMessages(scenario.dlq.name);
      return stored.length === 2 && stored;
    });
    expect(copies.map((c) => c.subject)).toEqual([scenario.dlqSubject, scenario.dlqSubject]);
    expect(copies.map((c) => c.headers.get(DLQ_HEADERS.reason))).toEqual([
      'platform_rejected: 403 channel_not_found',
      'invalid_payload: not JSON',
    ]);
    expect(copies.map((c) => c.headers.get(DLQ_HEADERS.originalSubject))).toEqual([
      scenario.subject('s1.refused'),
      scenario.subject('s2.garbled'),
    ]);
    expect(copies.map((c) => c.headers.get(DLQ_HEADERS.service))).toEqual([
      'test-service',
      'test-service',
    ]);
    expect(copies.map((c) => c.headers.get('Nats-Msg-Id'))).toEqual([
      `${scenario.work.name}:1`,
      `${scenario.work.name}:2`,
    ]);
    expect(copies[0].headers.get('Tollgate-Session')).toBe('s1');
    expect(JSON.parse(copies[0].data)).toEqual({ refuse: true });
    expect(copies[1].data).toBe('{no');
    expect(run.deliveries.map((d) => d.deliveryCount)).toEqual([1, 1]);
    await expectSettledForGood(scope, scenario, () => run.deliveries.length);
  });

  it('dead-letters the last allowed delivery of a message that keeps failing', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 1_000, maxDeliver: 3 });
    const run = recorder(async () => {
      throw new TransientFailure('platform_unavailable: timeout');
    });
    await scope.runner(scenario, run.handler, { onOutcome: run.onOutcome });

    await scope.publisher.publish(scenario.subject('s1.message'), { n: 1 }, { msgId: 'm-1' });

    await waitFor('the dead-lettering', () =>
      run.outcomes.some((o) => o.outcome === 'dead_lettered'),
    );
    expect(run.deliveries.map((d) => d.deliveryCount)).toEqual([1, 2, 3]);
    expect(run.outcomes.map((o) => o.outcome)).toEqual(['naked', 'naked', 'dead_lettered']);
    const [copy] = await scope.storedMessages(scenario.dlq.name);
    expect(copy?.headers.get(DLQ_HEADERS.reason)).toBe(
      'max_deliver_exhausted: platform_unavailable: timeout',
    );
    await expectSettledForGood(scope, scenario, () => run.deliveries.length);
  });

  it('naks instead of losing the message when the DLQ publish fails', async () => {
    const scenario = await scope.provisioned({ ackWaitMs: 5_000 });
    const run = recorder(async () => {
      throw new PermanentFailure('platform_rejected: 400');
    });
    // No stream listens on this subject, so the dead-letter publish cannot be stored.
    await scope.runner(scenario, run.handler, {
      onOutcome: run.onOutcome,
      dlqSubject: `${scenario.prefix}.nowhere`,
      retryBaseMs: 100,
    });

    await scope.publisher.publish(scenario.subject('s1.message'), { n: 1 }, { msgId: 'n-1' });

    await waitFor('a second attempt to be settled', () => run.outcomes.length >= 2, {
      timeoutMs: 15_000,
    });
    expect(run.outcomes.slice(0, 2).map((o) => o.outcome)).toEqual(['naked', 'naked']);
    expect(run.deliveries[1].deliveryCount).toBe(2);
    expect(await scope.storedMessages(scenario.dlq.name)).toEqual([]);
  });
});
