import { editFormOf } from '@tollgate/binding-core';
import {
  buttonClickInteraction,
  checkDiscordModal,
  modalSubmitInteraction,
} from '@tollgate/platform-standins';
import { standardOptions } from '@tollgate/protocol';
import { aRequest } from '../../../../libs/protocol/src/testing/message-fixtures';
import { classifyDiscordInteraction } from '../inbound/discord-interaction.rules';
import { renderDiscordEditModal } from './discord-edit-modal.renderer';
import { renderDiscordPrompt } from './discord-prompt.renderer';

const APP = '1100000000000000001';
const alice = { id: '80351110224678912', username: 'alice', global_name: 'Alice' };
const request = aRequest({
  options: standardOptions(),
  editable: [
    { name: 'path', value: '/srv/a', constraint: { prefix: '/srv/a' } },
    { name: 'tags', value: ['x', 'y'], constraint: { subsetOf: ['x', 'y'] } },
  ],
});

describe('G2 Discord "Edit & approve"', () => {
  it('G2 an editable prompt has an "Edit & approve" button after "Approve once", in one row of five', () => {
    const { components } = renderDiscordPrompt({ kind: 'pending', request }, 'ref123');
    expect(components.flatMap((row) => row.components.map((b) => b.custom_id))).toEqual([
      'tg:approve_once:ref123',
      'tg:edit:ref123',
      'tg:approve_session:ref123',
      'tg:approve_always:ref123',
      'tg:deny:ref123',
    ]);
  });

  it('G2 its click is an edit, and the modal Discord would accept holds one input per argument, prefilled', () => {
    const click = buttonClickInteraction({
      applicationId: APP,
      token: 'tok',
      guildId: '700',
      channelId: '800',
      user: alice,
      customId: 'tg:edit:ref123',
      messageId: '901',
    });
    expect(classifyDiscordInteraction(click)).toEqual({
      kind: 'edit',
      promptRef: 'ref123',
      token: 'tok',
      channelId: '800',
    });
    const modal = renderDiscordEditModal(editFormOf(request, 'ref123')!);
    const checked = checkDiscordModal(modal);
    expect(checked).toEqual({
      customId: 'tge:ref123',
      title: 'Edit & approve',
      inputs: [
        {
          customId: 'tga:0',
          label: 'path',
          style: 1,
          value: '/srv/a',
          placeholder: 'Must be under /srv/a',
        },
        {
          customId: 'tga:1',
          label: 'tags',
          style: 2,
          value: 'x\ny',
          placeholder: 'Must be within x, y',
        },
      ],
    });
  });

  it('G2 the modal submission is an approve_once for the prompt, its texts by input, its id the interaction id', () => {
    const checked = checkDiscordModal(renderDiscordEditModal(editFormOf(request, 'ref123')!));
    if (typeof checked === 'string') throw new Error(checked);
    const submit = modalSubmitInteraction({
      applicationId: APP,
      guildId: '700',
      modal: { ...checked, userId: alice.id, channelId: '800', messageId: '901' },
      user: alice,
      values: { 'tga:0': '/srv/a/tmp' },
      token: 'tok2',
    });
    const verdict = classifyDiscordInteraction(submit);
    expect(verdict).toMatchObject({
      kind: 'edit_submit',
      token: 'tok2',
      channelId: '800',
      click: {
        promptRef: 'ref123',
        optionKey: 'approve_once',
        clicker: { id: alice.id },
        commandId: submit.id,
        messageRef: { channelId: '800', messageId: '901' },
      },
    });
    if (verdict.kind !== 'edit_submit') throw new Error('not an edit');
    expect([...verdict.texts]).toEqual([
      [0, '/srv/a/tmp'],
      [1, 'x\ny'],
    ]);
  });

  it('G2 Discord refuses a modal with more than five inputs or a title over 45 characters', () => {
    const row = { type: 1, components: [{ type: 4, custom_id: 'a', label: 'a', style: 1 }] };
    expect(checkDiscordModal({ custom_id: 'x', title: 't', components: Array(6).fill(row) })).toBe(
      'components must hold 1 to 5 action rows',
    );
    expect(checkDiscordModal({ custom_id: 'x', title: 't'.repeat(46), components: [row] })).toBe(
      'title must be 1 to 45 characters',
    );
  });
});
