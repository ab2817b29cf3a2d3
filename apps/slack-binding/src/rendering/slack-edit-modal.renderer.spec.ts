import { editFormOf, type PromptView } from '@tollgate/binding-core';
import { standardOptions, type ToolInteractionRequest } from '@tollgate/protocol';
import { renderSlackEditModal } from './slack-edit-modal.renderer';
import { renderSlackPrompt } from './slack-prompt.renderer';

const request = {
  type: 'ToolInteractionRequest',
  v: 1,
  id: 'slack-abc:5:0',
  sessionId: 'slack-abc',
  conversation: { platform: 'slack', workspaceId: 'T1', channelId: 'C1', threadId: '1.2' },
  occurredAt: '2026-11-29T00:00:00.000Z',
  seq: 5,
  callId: 'call_2_1',
  batchId: 'batch_3',
  toolName: 'fs__write_file',
  displayText: 'Tool: fs__write_file',
  requester: { id: 'U123', displayName: 'Alice' },
  principal: 'user',
  options: standardOptions(),
  editable: [
    { name: 'path', value: '/srv/a', constraint: { prefix: '/srv/a' } },
    { name: 'tags', value: ['x', 'y'], constraint: { subsetOf: ['x', 'y', 'z'] } },
  ],
} as ToolInteractionRequest;

describe('G2 Slack "Edit & approve"', () => {
  it('G2 an editable prompt has an "Edit & approve" button after "Approve once"; others have none', () => {
    const labels = (view: PromptView) =>
      renderSlackPrompt(view, 'ref123')
        .blocks.filter((b) => b.type === 'actions')
        .flatMap((b) => ('elements' in b ? b.elements : []))
        .map((e) => ('action_id' in e ? e.action_id : ''));
    expect(labels({ kind: 'pending', request })).toEqual([
      'tollgate:approve_once',
      'tollgate:edit',
      'tollgate:approve_session',
      'tollgate:approve_always',
      'tollgate:deny',
    ]);
    const plain = { ...request, editable: undefined };
    expect(labels({ kind: 'refreshed', request: plain })).not.toContain('tollgate:edit');
  });

  it('G2 the modal has one input per argument, prefilled, with the constraint as its hint, and finds its prompt again', () => {
    const form = editFormOf(request, 'ref123')!;
    const modal = renderSlackEditModal(form, {
      ref: 'ref123',
      channel: 'C1',
      ts: '1.3',
      names: ['path', 'tags'],
    });
    expect(modal).toMatchObject({
      type: 'modal',
      callback_id: 'tollgate_edit',
      title: { text: 'Edit & approve' },
      submit: { text: 'Approve' },
      blocks: [
        { type: 'section' },
        {
          type: 'input',
          block_id: 'tollgate_arg_0',
          label: { text: 'path' },
          hint: { text: 'Must be under /srv/a' },
          element: { action_id: 'value', initial_value: '/srv/a', multiline: false },
        },
        {
          type: 'input',
          block_id: 'tollgate_arg_1',
          label: { text: 'tags' },
          element: { initial_value: 'x\ny', multiline: true },
        },
      ],
    });
    expect(JSON.parse(modal.private_metadata!)).toEqual({
      ref: 'ref123',
      channel: 'C1',
      ts: '1.3',
      names: ['path', 'tags'],
    });
  });
});
