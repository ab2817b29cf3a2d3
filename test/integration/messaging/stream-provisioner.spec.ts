import { nanos } from '@nats-io/nats-core';
import pino from 'pino';
import { provision } from '@tollgate/messaging';
import { MessagingScope, silentLogger } from './messaging-scope';

function capturingLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}

describe('provision', () => {
  let scope: MessagingScope;

  beforeAll(async () => {
    scope = await MessagingScope.open('msgprov');
  });
  afterAll(async () => {
    await scope.close();
  });

  it('creates the missing streams and durable with the protocol settings', async () => {
    const scenario = scope.define({ retention: 'workqueue', ackWaitMs: 1_500, maxDeliver: 7 });
    const plan = { streams: [scenario.work, scenario.dlq], consumers: [scenario.consumer] };

    const report = await provision(scope.jsm, plan, silentLogger);

    expect(report.created).toEqual([
      `stream ${scenario.work.name}`,
      `stream ${scenario.dlq.name}`,
      `consumer ${scenario.work.name}/worker`,
    ]);
    const stream = await scope.jsm.streams.info(scenario.work.name);
    expect(stream.config).toMatchObject({
      subjects: scenario.work.subjects,
      retention: 'workqueue',
      storage: 'file',
      max_age: 0,
      duplicate_window: nanos(120_000),
    });
    const dlq = await scope.jsm.streams.info(scenario.dlq.name);
    expect(dlq.config).toMatchObject({ retention: 'limits', max_age: nanos(24 * 3_600_000) });
    const consumer = await scope.consumerInfo(scenario);
    expect(consumer.config).toMatchObject({
      durable_name: 'worker',
      ack_policy: 'explicit',
      deliver_policy: 'all',
      ack_wait: nanos(1_500),
      max_deliver: 7,
      filter_subject: scenario.consumer.filterSubject,
    });
    expect(consumer.config.deliver_subject).toBeUndefined();
    expect(consumer.config.backoff).toBeUndefined();
  });

  it('changes nothing when run again', async () => {
    const scenario = scope.define();
    const plan = { streams: [scenario.work, scenario.dlq], consumers: [scenario.consumer] };
    await provision(scope.jsm, plan, silentLogger);
    const before = await scope.consumerInfo(scenario);
    const { logger, lines } = capturingLogger();

    const report = await provision(scope.jsm, plan, logger);

    expect(report).toEqual({
      created: [],
      unchanged: [
        `stream ${scenario.work.name}`,
        `stream ${scenario.dlq.name}`,
        `consumer ${scenario.work.name}/worker`,
      ],
      differing: [],
      updated: [],
    });
    expect(lines.filter((l) => l.level === 40)).toEqual([]);
    const after = await scope.consumerInfo(scenario);
    expect(after.created).toBe(before.created);
    expect(after.config).toEqual(before.config);
  });

  it('reports and logs a differing setting but leaves the running one as it is', async () => {
    const scenario = scope.define({ ackWaitMs: 2_000, maxDeliver: 5 });
    await provision(
      scope.jsm,
      { streams: [scenario.work, scenario.dlq], consumers: [scenario.consumer] },
      silentLogger,
    );
    const { logger, lines } = capturingLogger();
    const changedStream = { ...scenario.work, maxAgeMs: 60_000 };
    const changedConsumer = { ...scenario.consumer, ackWaitMs: 9_000 };

    const report = await provision(
      scope.jsm,
      { streams: [changedStream], consumers: [changedConsumer] },
      logger,
    );

    expect(report.created).toEqual([]);
    expect(report.differing).toEqual([
      {
        resource: `stream ${scenario.work.name}`,
        differences: [{ field: 'max_age', wanted: 60_000, actual: 0 }],
      },
      {
        resource: `consumer ${scenario.work.name}/worker`,
        differences: [{ field: 'ack_wait', wanted: 9_000, actual: 2_000 }],
      },
    ]);
    const warnings = lines.filter((l) => l.level === 40).map((l) => String(l.msg));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('max_age');
    expect(warnings[1]).toContain('ack_wait');
    expect((await scope.jsm.streams.info(scenario.work.name)).config.max_age).toBe(0);
    expect((await scope.consumerInfo(scenario)).config.ack_wait).toBe(nanos(2_000));
  });
});
