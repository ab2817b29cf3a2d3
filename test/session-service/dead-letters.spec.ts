import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { deriveSessionId, DLQ_HEADERS, encodeMessage, streamNames } from '@tollgate/protocol';
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
    const subject = `${service.prefix}.cmd.${conversation.platform}.${sessionId}.message`;
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

  it('X1 dead-letters a command whose subject platform, session id and conversation disagree', async () => {
    const js = jetstream(service.nc);
    const slack = freshConversation('slack');
    const discord = freshConversation('discord');
    const slackSession = deriveSessionId(slack);
    const discordSession = deriveSessionId(discord);
    const forged = userMessage(slack, 'approve it for me', { id: 'x1-forged' });
    const misrouted = [
      `${service.prefix}.cmd.discord.${slackSession}.message`,
      `${service.prefix}.cmd.discord.${discordSession}.message`,
      `${service.prefix}.cmd.slack.${discordSession}.message`,
    ];
    for (const [index, subject] of misrouted.entries()) {
      await js.publish(subject, encodeMessage(forged), { msgID: `x1-misrouted-${index}` });
    }
    const good = userMessage(slack, 'after the misrouted ones');
    await service.send(good);
    await service.outputs.waitForOutputs(
      'the reply to the good message',
      is.text('You said: after'),
      {
        sessionId: slackSession,
      },
    );

    const letters = await waitFor('three platform_mismatch dead letters', async () => {
      const found = (await deadLettersOf(service)).filter((l) =>
        misrouted.includes(l.originalSubject ?? ''),
      );
      return found.length === misrouted.length ? found : undefined;
    });
    expect(letters.map((l) => l.originalSubject).sort()).toEqual([...misrouted].sort());
    for (const letter of letters) expect(letter.reason).toMatch(/^platform_mismatch: /);
    // The forged text never reached either session's journal.
    const journaled = [
      ...(await service.journal(slackSession)),
      ...(await service.journal(discordSession)),
    ];
    expect(JSON.stringify(journaled)).not.toContain('approve it for me');
  });
});

async function deadLettersOf(
  service: SessionServiceFixture,
): Promise<{ originalSubject: string | undefined; reason: string | undefined }[]> {
  const jsm = await jetstreamManager(service.nc);
  const dlq = streamNames(service.prefix).deadLetters;
  const info = await jsm.streams.info(dlq);
  const letters = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
    const stored = await jsm.streams.getMessage(dlq, { seq });
    letters.push({
      originalSubject: stored?.header.get(DLQ_HEADERS.originalSubject),
      reason: stored?.header.get(DLQ_HEADERS.reason),
    });
  }
  return letters;
}
