import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { deriveSessionId, DLQ_HEADERS, streamNames } from '@tollgate/protocol';
import { freshConversation, userMessage } from '../support/commands';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { waitFor } from '../support/wait-for';

describe('session service refuses malformed commands', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('dlq');
  });

  afterAll(async () => {
    await service.dispose();
  });

  it('dead-letters every malformed command with its reason and keeps consuming', async () => {
    const js = jetstream(service.nc);
    const conversation = freshConversation();
    const sessionId = deriveSessionId(conversation);
    const good = userMessage(conversation, 'still listening?');
    const subject = `${service.prefix}.cmd.${sessionId}.message`;
    const bad: [string, string][] = [
      ['not json', 'invalid_json'],
      [JSON.stringify({ ...good, v: 2, id: 'v2' }), 'unknown_version'],
      [JSON.stringify({ ...good, id: 'extra', surprise: true }), 'invalid_payload'],
      [JSON.stringify({ ...good, id: 'long', text: 'x'.repeat(40_001) }), 'invalid_payload'],
      [JSON.stringify({ ...good, id: 'mismatch', sessionId: 'slack-' + '0'.repeat(32) }), ''],
    ];
    for (const [index, [payload]] of bad.entries()) {
      await js.publish(subject, new TextEncoder().encode(payload), { msgID: `bad-${index}` });
    }
    await service.send(good);
    await service.outputs.waitForOutputs(
      'the reply after the bad ones',
      is.text('You said: still listening?'),
      {
        sessionId,
      },
    );

    const jsm = await jetstreamManager(service.nc);
    const dlq = streamNames(service.prefix).deadLetters;
    await waitFor('five dead letters', async () => {
      const info = await jsm.streams.info(dlq);
      return info.state.messages === 5 ? true : undefined;
    });
    const reasons: string[] = [];
    for (let seq = 1; seq <= 5; seq += 1) {
      const stored = await jsm.streams.getMessage(dlq, { seq });
      expect(stored?.subject).toBe(`${service.prefix}.dlq.session-service`);
      expect(stored?.header.get(DLQ_HEADERS.originalSubject)).toBe(subject);
      expect(stored?.header.get(DLQ_HEADERS.service)).toBe('session-service');
      reasons.push(stored?.header.get(DLQ_HEADERS.reason) ?? '');
    }
    for (const [index, [, reason]] of bad.entries()) {
      expect(reasons[index]).toMatch(/^invalid_payload: /);
      if (reason) expect(reasons[index]).toContain(reason);
    }
    // Nothing is left pending or redelivered on the command consumer.
    const consumer = await jsm.consumers.info(
      streamNames(service.prefix).commands,
      'session-service',
    );
    expect(consumer.num_ack_pending).toBe(0);
    expect(consumer.num_pending).toBe(0);
  });
});
