import { classifySlackEvent } from './slack-event.rules';

const base = { channel: 'C1', user: 'U1', ts: '100.1', text: 'hello' };

describe('Slack conversation rules (docs/protocol.md §1.1)', () => {
  it('forwards a mention as a thread rooted at its own ts, without the mention', () => {
    const verdict = classifySlackEvent('T1', {
      ...base,
      type: 'app_mention',
      text: '<@UBOT> !echo {}',
    });
    expect(verdict).toEqual({
      kind: 'forward',
      message: {
        conversation: { platform: 'slack', workspaceId: 'T1', channelId: 'C1', threadId: '100.1' },
        sender: { id: 'U1' },
        text: '!echo {}',
        commandId: 'slack:T1:C1:100.1',
      },
    });
  });

  it('forwards a direct message and, only if the thread has a session, a thread reply', () => {
    expect(classifySlackEvent('T1', { ...base, type: 'message', channel_type: 'im' }).kind).toBe(
      'forward',
    );
    const reply = classifySlackEvent('T1', { ...base, type: 'message', thread_ts: '99.9' });
    expect(reply.kind).toBe('forward_if_session');
    if (reply.kind === 'forward_if_session')
      expect(reply.message.conversation.threadId).toBe('99.9');
  });

  it('gives a mention and its message event the same command id', () => {
    const mention = classifySlackEvent('T1', { ...base, type: 'app_mention', thread_ts: '99.9' });
    const message = classifySlackEvent('T1', { ...base, type: 'message', thread_ts: '99.9' });
    expect(mention.kind !== 'ignore' && message.kind !== 'ignore').toBe(true);
    if (mention.kind !== 'ignore' && message.kind !== 'ignore') {
      expect(mention.message.commandId).toBe(message.message.commandId);
    }
  });

  it.each([
    [{ ...base, type: 'message', bot_id: 'B1', thread_ts: '99.9' }, 'posted by a bot'],
    [
      { ...base, type: 'message', subtype: 'message_changed', thread_ts: '99.9' },
      'subtype message_changed',
    ],
    [{ ...base, type: 'message', subtype: 'message_deleted' }, 'subtype message_deleted'],
    [{ ...base, type: 'app_mention', bot_id: 'B1' }, 'posted by a bot'],
    [{ ...base, type: 'message' }, 'a channel message not addressed to the bot'],
    [{ ...base, type: 'reaction_added' }, 'event type reaction_added'],
  ])('ignores %j', (event, reason) => {
    expect(classifySlackEvent('T1', event)).toEqual({ kind: 'ignore', reason });
  });

  it('X19 takes an empty thread_ts as no thread: a mention still roots its own thread', () => {
    const verdict = classifySlackEvent('T1', { ...base, type: 'app_mention', thread_ts: '' });
    expect(verdict.kind).toBe('forward');
    if (verdict.kind === 'forward') expect(verdict.message.conversation.threadId).toBe('100.1');
    expect(classifySlackEvent('T1', { ...base, type: 'message', thread_ts: '' }).kind).toBe(
      'ignore',
    );
  });
});
