import {
  bindingConsumer,
  sessionServiceConsumer,
  streamDefinitions,
  type StreamDefinitions,
} from './streams';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('streamDefinitions', () => {
  it('defines the four streams of docs/protocol.md §2 for the default prefix', () => {
    const expected: StreamDefinitions = {
      commands: {
        name: 'TOLLGATE_CMD',
        subjects: ['tollgate.cmd.>'],
        retention: 'workqueue',
        maxAgeMs: 0,
        duplicateWindowMs: 120_000,
        storage: 'file',
        maxBytes: 1024 ** 3,
        discard: 'new',
      },
      outputs: {
        name: 'TOLLGATE_OUT',
        subjects: ['tollgate.out.>'],
        retention: 'limits',
        maxAgeMs: 14 * DAY_MS,
        duplicateWindowMs: 120_000,
        storage: 'file',
        maxBytes: 1024 ** 3,
        discard: 'new',
      },
      deadLetters: {
        name: 'TOLLGATE_DLQ',
        subjects: ['tollgate.dlq.>'],
        retention: 'limits',
        maxAgeMs: 30 * DAY_MS,
        duplicateWindowMs: 120_000,
        storage: 'file',
        maxBytes: 1024 ** 3,
        discard: 'old',
      },
      decisions: {
        name: 'TOLLGATE_DECISION',
        subjects: ['tollgate.decision.>'],
        retention: 'limits',
        maxAgeMs: 30 * DAY_MS,
        duplicateWindowMs: 120_000,
        storage: 'file',
        maxBytes: 1024 ** 3,
        discard: 'new',
      },
    };

    expect(streamDefinitions('tollgate')).toEqual(expected);
  });

  it('names streams after a dashed prefix and honours the output max age', () => {
    const streams = streamDefinitions('my-app', { outMaxAgeDays: 3 });

    expect(streams.commands.name).toBe('MY_APP_CMD');
    expect(streams.outputs).toMatchObject({
      name: 'MY_APP_OUT',
      subjects: ['my-app.out.>'],
      maxAgeMs: 3 * DAY_MS,
    });
    expect(streams.deadLetters.name).toBe('MY_APP_DLQ');
    expect(streams.decisions.name).toBe('MY_APP_DECISION');
  });

  it.each([0, -1, Number.NaN])('refuses outMaxAgeDays %p', (outMaxAgeDays) => {
    expect(() => streamDefinitions('tollgate', { outMaxAgeDays })).toThrow(RangeError);
  });

  it('refuses a size limit under 1 MiB', () => {
    expect(() => streamDefinitions('tollgate', { maxBytes: 1000 })).toThrow(RangeError);
    expect(streamDefinitions('tollgate', { maxBytes: 2 ** 21 }).outputs.maxBytes).toBe(2 ** 21);
  });

  it('refuses an invalid prefix', () => {
    expect(() => streamDefinitions('Tollgate')).toThrow();
  });
});

describe('consumers', () => {
  it('defines the session-service consumer on the command stream', () => {
    expect(sessionServiceConsumer('tollgate')).toEqual({
      stream: 'TOLLGATE_CMD',
      durable: 'session-service',
      filterSubject: 'tollgate.cmd.>',
      ackWaitMs: 30_000,
      maxDeliver: 1000,
      deliverPolicy: 'all',
      maxAckPending: 20_000,
    });
  });

  it('defines one binding consumer per platform on the output stream', () => {
    expect(bindingConsumer('test_x', 'discord', 5_000)).toEqual({
      stream: 'TEST_X_OUT',
      durable: 'discord-binding',
      filterSubject: 'test_x.out.discord.>',
      ackWaitMs: 5_000,
      maxDeliver: 1000,
      deliverPolicy: 'all',
      maxAckPending: 20_000,
    });
  });

  it('refuses a non-positive ack wait', () => {
    expect(() => sessionServiceConsumer('tollgate', 0)).toThrow(RangeError);
    expect(() => bindingConsumer('tollgate', 'slack', 1.5)).toThrow(RangeError);
  });
});
