import { MessagingScope } from './messaging-scope';

describe('JetStreamPublisher', () => {
  let scope: MessagingScope;

  beforeAll(async () => {
    scope = await MessagingScope.open('msgpub');
  });
  afterAll(async () => {
    await scope.close();
  });

  it('stores a message published twice with the same Nats-Msg-Id once', async () => {
    const scenario = await scope.provisioned();
    const subject = scenario.subject('s1.message');

    const first = await scope.publisher.publish(subject, { text: 'hello' }, { msgId: 'cmd-1' });
    const again = await scope.publisher.publish(subject, { text: 'hello' }, { msgId: 'cmd-1' });
    const other = await scope.publisher.publish(subject, { text: 'bye' }, { msgId: 'cmd-2' });

    expect(first).toEqual({ stream: scenario.work.name, seq: 1, duplicate: false });
    expect(again).toEqual({ stream: scenario.work.name, seq: 1, duplicate: true });
    expect(other).toEqual({ stream: scenario.work.name, seq: 2, duplicate: false });
    const stored = await scope.storedMessages(scenario.work.name);
    expect(stored.map((m) => JSON.parse(m.data))).toEqual([{ text: 'hello' }, { text: 'bye' }]);
  });

  it('sends raw bytes as they are, with the headers given and the msgId', async () => {
    const scenario = await scope.provisioned();
    const bytes = new Uint8Array([0, 1, 2, 255]);

    await scope.publisher.publish(scenario.subject('raw'), bytes, {
      msgId: 'raw-1',
      headers: { 'Tollgate-Trace': 't-1' },
    });

    const stored = await scope.jsm.streams.getMessage(scenario.work.name, { seq: 1 });
    expect(stored?.data).toEqual(bytes);
    expect(stored?.header.get('Tollgate-Trace')).toBe('t-1');
    expect(stored?.header.get('Nats-Msg-Id')).toBe('raw-1');
  });
});
