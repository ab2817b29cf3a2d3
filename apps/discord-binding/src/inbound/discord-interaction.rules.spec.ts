import {
  askCommandInteraction,
  buttonClickInteraction,
  pingInteraction,
} from '@tollgate/platform-standins';
import { classifyDiscordInteraction, type DiscordInteraction } from './discord-interaction.rules';

const APP = '1100000000000000001';
const alice = { id: '80351110224678912', username: 'alice', global_name: 'Alice' };

describe('Discord conversation rules (docs/protocol.md §1.1)', () => {
  it('answers a PING', () => {
    expect(classifyDiscordInteraction(pingInteraction(APP))).toEqual({ kind: 'ping' });
  });

  it('/ask in a guild: workspace = guild, channel = the channel, no thread; id = interaction id', () => {
    const interaction = askCommandInteraction({
      applicationId: APP,
      id: '900',
      token: 'tok',
      guildId: '700',
      channelId: '800',
      user: alice,
      text: 'hello there',
    });
    expect(classifyDiscordInteraction(interaction)).toEqual({
      kind: 'ask',
      token: 'tok',
      message: {
        conversation: { platform: 'discord', workspaceId: '700', channelId: '800', threadId: '' },
        sender: { id: alice.id, displayName: 'Alice' },
        text: 'hello there',
        commandId: '900',
      },
    });
  });

  it('/ask in a DM: no guild, the person is `user`', () => {
    const interaction = askCommandInteraction({
      applicationId: APP,
      channelId: '801',
      user: { id: '5', username: 'bob' },
      text: 'hi',
    });
    expect(interaction).not.toHaveProperty('member');
    const verdict = classifyDiscordInteraction(interaction);
    expect(verdict).toMatchObject({
      kind: 'ask',
      message: {
        conversation: { workspaceId: '', channelId: '801', threadId: '' },
        sender: { id: '5', displayName: 'bob' },
      },
    });
  });

  it('a Tollgate button click names the prompt ref, the option, the clicker and the message', () => {
    const interaction = buttonClickInteraction({
      applicationId: APP,
      id: '901',
      token: 'tok2',
      guildId: '700',
      channelId: '800',
      user: alice,
      customId: 'tg:deny:ref123',
      messageId: '555',
    });
    expect(classifyDiscordInteraction(interaction)).toEqual({
      kind: 'click',
      token: 'tok2',
      channelId: '800',
      guildId: '700',
      click: {
        promptRef: 'ref123',
        optionKey: 'deny',
        clicker: { id: alice.id, displayName: 'Alice' },
        commandId: '901',
        messageRef: { channelId: '800', messageId: '555' },
      },
    });
  });

  it.each([
    [
      {
        type: 3,
        id: '1',
        token: 't',
        channel_id: '2',
        user: { id: '3' },
        data: { custom_id: 'x' },
      },
    ],
    [{ type: 2, id: '1', token: 't', channel_id: '2', user: { id: '3' }, data: { name: 'other' } }],
    [{ type: 2, id: '1', token: 't', channel_id: '2', user: { id: '3' }, data: { name: 'ask' } }],
    [{ type: 3, id: '1', channel_id: '2', data: { custom_id: 'tg:a:b' } }],
    [{ type: 5, id: '1', token: 't', channel_id: '2', user: { id: '3' } }],
  ] as DiscordInteraction[][])('ignores what is not for Tollgate: %o', (interaction) => {
    expect(classifyDiscordInteraction(interaction)).toMatchObject({ kind: 'ignore' });
  });
});
