import { classifyMattermostCommand, commandTokenMatches } from './mattermost-command.rules';

const base = {
  token: 't',
  team_id: 'team1',
  channel_id: 'chan1',
  user_id: 'user1',
  user_name: 'alice',
};

describe('Mattermost conversation rules (docs/protocol.md §1.1)', () => {
  it('a slash command in a thread: the thread is its root_id, the command id from its trigger_id', () => {
    expect(
      classifyMattermostCommand({
        ...base,
        command: '/ask',
        text: ' hello ',
        trigger_id: 'trig1',
        root_id: 'root1',
      }),
    ).toEqual({
      kind: 'forward',
      message: {
        conversation: {
          platform: 'mattermost',
          workspaceId: 'team1',
          channelId: 'chan1',
          threadId: 'root1',
        },
        sender: { id: 'user1', displayName: 'alice' },
        text: 'hello',
        commandId: 'mattermost:trig1',
        source: 'slash_command',
      },
    });
  });

  it('a slash command at the top of a channel has no thread', () => {
    const verdict = classifyMattermostCommand({
      ...base,
      command: '/ask',
      text: 'hi',
      trigger_id: 'trig2',
    });
    expect(verdict).toMatchObject({ kind: 'forward', message: { conversation: { threadId: '' } } });
  });

  it('an outgoing webhook on a root post: the thread is the post itself, the command id from its id', () => {
    const verdict = classifyMattermostCommand({
      ...base,
      post_id: 'post1',
      trigger_word: '@tollgate',
      text: '@tollgate do it',
    });
    expect(verdict).toMatchObject({
      kind: 'forward',
      message: {
        conversation: { threadId: 'post1' },
        text: 'do it',
        commandId: 'mattermost:post1',
        source: 'outgoing_webhook',
      },
    });
  });

  it('an outgoing webhook on a reply belongs to the root thread', () => {
    const verdict = classifyMattermostCommand({
      ...base,
      post_id: 'post2',
      root_id: 'root9',
      text: 'more',
    });
    expect(verdict).toMatchObject({ message: { conversation: { threadId: 'root9' } } });
  });

  it.each([
    ['no team', { ...base, team_id: undefined, trigger_id: 'x', text: 'hi', command: '/ask' }],
    ['no user', { ...base, user_id: '', trigger_id: 'x', text: 'hi', command: '/ask' }],
    ['no id to dedupe by', { ...base, text: 'hi', command: '/ask' }],
    ['no text', { ...base, trigger_id: 'x', text: '  ', command: '/ask' }],
  ])('ignores a request with %s', (_label, body) => {
    expect(classifyMattermostCommand(body)).toMatchObject({ kind: 'ignore' });
  });

  it('checks the command token exactly', () => {
    expect(commandTokenMatches('secret-token', 'secret-token')).toBe(true);
    expect(commandTokenMatches('secret-token', 'secret-tokem')).toBe(false);
    expect(commandTokenMatches('secret-token', 'secret')).toBe(false);
    expect(commandTokenMatches('secret-token', undefined)).toBe(false);
    expect(commandTokenMatches('secret-token', ['secret-token'])).toBe(false);
  });
});
