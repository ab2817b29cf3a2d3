import { WebClient } from '@slack/web-api';
import { SlackApiFake } from './slack-api.fake';
import { SlackViewsFake, viewSubmissionPayload } from './slack-views.fake';

const modal = {
  type: 'modal',
  callback_id: 'cb',
  title: { type: 'plain_text', text: 'Edit & approve' },
  submit: { type: 'plain_text', text: 'Approve' },
  blocks: [
    {
      type: 'input',
      block_id: 'b0',
      label: { type: 'plain_text', text: 'path' },
      element: { type: 'plain_text_input', action_id: 'value', initial_value: '/srv/a' },
    },
  ],
};

describe('G2 Slack views.open stand-in', () => {
  it('G2 a trigger_id opens one modal within 3 s of its click; after that it has expired, and one never issued is invalid', () => {
    let now = 1_000_000;
    const views = new SlackViewsFake(() => now);
    const fresh = views.issueTrigger('U1');
    const late = views.issueTrigger('U1');

    now += 2_999;
    expect(views.open({ trigger_id: fresh, view: modal })).toMatchObject({ ok: true });
    expect(views.open({ trigger_id: fresh, view: modal })).toEqual({
      ok: false,
      error: 'invalid_trigger_id',
    });
    now += 2;
    expect(views.open({ trigger_id: late, view: modal })).toEqual({
      ok: false,
      error: 'expired_trigger_id',
    });
    expect(views.open({ trigger_id: 'made.up', view: modal })).toMatchObject({
      error: 'invalid_trigger_id',
    });
    expect(views.views).toEqual([
      expect.objectContaining({
        user: 'U1',
        openedAfterMs: 2_999,
        inputs: [
          {
            blockId: 'b0',
            actionId: 'value',
            label: 'path',
            initialValue: '/srv/a',
            multiline: false,
          },
        ],
      }),
    ]);
  });

  it('G2 a modal Slack would refuse is refused: a title over 24 characters, an input without a block_id', () => {
    const views = new SlackViewsFake();
    const long = { ...modal, title: { type: 'plain_text', text: 'x'.repeat(25) } };
    expect(views.open({ trigger_id: views.issueTrigger('U1'), view: long })).toMatchObject({
      ok: false,
      error: 'invalid_arguments',
    });
    const noBlockId = { ...modal, blocks: [{ ...modal.blocks[0], block_id: undefined }] };
    expect(views.open({ trigger_id: views.issueTrigger('U1'), view: noBlockId })).toMatchObject({
      ok: false,
    });
  });

  it('G2 the official WebClient opens a modal on the stand-in, and its submission carries each value by block', async () => {
    const fake = new SlackApiFake();
    await fake.start();
    try {
      const client = new WebClient(fake.botToken, { slackApiUrl: fake.apiUrl });
      const opened = await client.views.open({
        trigger_id: fake.issueTriggerId('U1'),
        view: modal as never,
      });
      expect(opened.ok).toBe(true);
      const [view] = fake.views;
      const payload = viewSubmissionPayload({
        teamId: 'T1',
        userId: 'U1',
        view: view,
        values: { b0: '/srv/a/tmp' },
      });
      expect(payload).toMatchObject({
        type: 'view_submission',
        view: { id: view.id, state: { values: { b0: { value: { value: '/srv/a/tmp' } } } } },
      });
    } finally {
      await fake.stop();
    }
  });
});
