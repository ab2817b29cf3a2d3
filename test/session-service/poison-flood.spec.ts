import { deriveSessionId, type Conversation } from '@tollgate/protocol';
import { freshConversation, userMessage } from '../support/commands';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';

const FLOOD = 920;

describe('X8 — one platform flooding with poison cannot starve another', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('flood');
  });

  afterAll(async () => {
    await service.dispose();
  });

  it('X8 920 Mattermost slash commands with U+0000, then a Slack message answered within 5 s', async () => {
    // Slash commands typed at the top of one channel: root_id and post_id are empty, so every
    // one lands in the same session, as in the attack.
    const mattermost: Conversation = { ...freshConversation('mattermost'), threadId: '' };
    const flood = Array.from({ length: FLOOD }, (_, i) =>
      userMessage(mattermost, `hi\u0000<${i}>`, { sender: { id: 'U_FLOOD' } }),
    );
    for (let i = 0; i < flood.length; i += 100) {
      await Promise.all(flood.slice(i, i + 100).map((command) => service.send(command)));
    }
    const slack = freshConversation('slack');
    const sentAt = Date.now();
    await service.send(userMessage(slack, 'anyone there?'));
    await service.outputs.waitForOutputs('the Slack reply', is.text('You said: anyone there?'), {
      sessionId: deriveSessionId(slack),
      timeoutMs: 5_000,
    });
    const answeredInMs = Date.now() - sentAt;
    expect(answeredInMs).toBeLessThan(5_000);
    // The flood itself is answered too, in time: nothing was retried for being unstorable.
    await service.outputs.waitForOutputs('every flood reply', is.text('You said: hi\u0000<'), {
      sessionId: deriveSessionId(mattermost),
      count: FLOOD,
      timeoutMs: 120_000,
    });
    // One session's 920 turns run one after another: about 40 s on a quiet two-core machine,
    // past jest's 60 s default on a loaded one, so the test gets the wait's bound and more.
  }, 180_000);
});
