import { createHash } from 'node:crypto';
import type { Conversation } from './conversation.schema';
import { deriveSessionId, isSessionId, platformOfSessionId } from './session-id';

const conversation: Conversation = {
  platform: 'slack',
  workspaceId: 'T0001',
  channelId: 'C0001',
  threadId: '1700000000.000100',
};

describe('deriveSessionId', () => {
  it('is the platform and the first 32 hex of sha256(workspaceId/channelId/threadId)', () => {
    const independent = createHash('sha256')
      .update('T0001/C0001/1700000000.000100')
      .digest('hex')
      .substring(0, 32);

    expect(deriveSessionId(conversation)).toBe(`slack-${independent}`);
  });

  it('matches a value computed outside JavaScript (sha256sum), so the form cannot drift', () => {
    expect(deriveSessionId(conversation)).toBe('slack-6887d0a5fc9b0bbb9ed2d76247aca200');
  });

  it('keeps empty ids as empty segments, as Discord has no thread', () => {
    const dm: Conversation = {
      platform: 'discord',
      workspaceId: '',
      channelId: 'D9',
      threadId: '',
    };
    const independent = createHash('sha256').update('/D9/').digest('hex').substring(0, 32);

    expect(deriveSessionId(dm)).toBe(`discord-${independent}`);
  });

  it('differs between threads of one channel and between platforms', () => {
    const otherThread = deriveSessionId({ ...conversation, threadId: '1700000000.000200' });
    const otherPlatform = deriveSessionId({ ...conversation, platform: 'mattermost' });

    expect(otherThread).not.toBe(deriveSessionId(conversation));
    expect(otherPlatform).toBe(
      `mattermost-${deriveSessionId(conversation).slice('slack-'.length)}`,
    );
  });
});

describe('isSessionId / platformOfSessionId', () => {
  it('recognises a derived id and its platform', () => {
    const id = deriveSessionId(conversation);

    expect(isSessionId(id)).toBe(true);
    expect(platformOfSessionId(id)).toBe('slack');
  });

  it.each([
    ['unknown platform', 'teams-6887d0a5fc9b0bbb9ed2d76247aca200'],
    ['short digest', 'slack-6887d0a5'],
    ['upper-case hex', 'slack-6887D0A5FC9B0BBB9ED2D76247ACA200'],
    ['a dot', 'slack-6887d0a5fc9b0bbb9ed2d76247aca20.'],
    ['trailing text', 'slack-6887d0a5fc9b0bbb9ed2d76247aca200x'],
  ])('refuses %s', (_case, value) => {
    expect(isSessionId(value)).toBe(false);
    expect(platformOfSessionId(value)).toBeUndefined();
  });
});
