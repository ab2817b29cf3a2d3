import { editFormOf } from '@tollgate/binding-core';
import { MattermostDialogsFake } from '@tollgate/platform-standins';
import { standardOptions } from '@tollgate/protocol';
import { aRequest } from '../../../../libs/protocol/src/testing/message-fixtures';
import { verifyActionContext } from '../inbound/action-signature';
import { renderMattermostEditDialog } from './mattermost-edit-dialog.renderer';
import { renderMattermostPrompt } from './mattermost-prompt.renderer';

const SECRET = 'mattermost-action-secret-for-tests';
const settings = { actionUrl: 'http://binding/mattermost/actions', actionSecret: SECRET };
const request = aRequest({
  options: standardOptions(),
  editable: [{ name: 'path', value: '/srv/a', constraint: { prefix: '/srv/a' } }],
});
const NONCE = '0123456789abcdef0123456789abcdef';

describe('G2 Mattermost "Edit & approve"', () => {
  it('G2 an editable prompt has an "Edit & approve" button after "Approve once", signed with the key edit', () => {
    const post = renderMattermostPrompt(
      { kind: 'pending', request },
      { promptRef: 'ref123', postNonce: NONCE },
      settings,
    );
    const actions = post.props.attachments[0]?.actions ?? [];
    expect(actions.map((a) => [a.id, a.name])).toEqual([
      ['approveonce', 'Approve once'],
      ['edit', 'Edit & approve'],
      ['approvesession', 'Allow in this chat'],
      ['approvealways', 'Always allow'],
      ['deny', 'Deny'],
    ]);
    const edit = actions[1];
    expect(verifyActionContext(SECRET, edit.integration.context)).toMatchObject({
      ok: true,
      context: { optionKey: 'edit', nonce: NONCE },
    });
  });

  it('G2 the dialog the server accepts: one element per argument, prefilled, the signed context as its state', () => {
    const context = {
      sessionId: request.sessionId,
      callId: request.callId,
      optionKey: 'edit',
      nonce: NONCE,
      sig: 'ab'.repeat(32),
    };
    const dialog = renderMattermostEditDialog(editFormOf(request, 'ref123')!, context, 'tge1');
    const fake = new MattermostDialogsFake();
    const opened = fake.open({
      trigger_id: fake.issueTrigger('u1', 'c1'),
      url: 'http://binding/mattermost/dialogs',
      dialog,
    });
    expect(opened).toMatchObject({
      ok: true,
      dialog: {
        callbackId: 'tge1',
        title: 'Edit & approve',
        elements: [
          {
            name: 'arg0',
            displayName: 'path',
            type: 'text',
            default: '/srv/a',
            helpText: 'Must be under /srv/a',
          },
        ],
      },
    });
    expect(JSON.parse(dialog.state)).toEqual(context);
  });

  it('G2 the stand-in accepts a trigger_id once within 3 s of its click, as the server does', () => {
    let now = 0;
    const fake = new MattermostDialogsFake(() => now);
    const dialog = { title: 'Edit', elements: [] };
    const url = 'http://binding/mattermost/dialogs';
    const first = fake.issueTrigger('u1', 'c1');
    const second = fake.issueTrigger('u1', 'c1');
    now = 3_000;
    expect(fake.open({ trigger_id: first, url, dialog })).toMatchObject({ ok: true });
    expect(fake.open({ trigger_id: first, url, dialog })).toMatchObject({ ok: false });
    now = 3_001;
    expect(fake.open({ trigger_id: second, url, dialog })).toEqual({
      ok: false,
      status: 400,
      message: 'trigger_id has expired',
    });
  });
});
