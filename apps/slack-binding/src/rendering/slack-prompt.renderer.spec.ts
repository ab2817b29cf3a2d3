import type { PromptView } from '@tollgate/binding-core';
import { oversizedPromptText } from '../../../../libs/binding-core/src/testing/prompt-text.fixture';
import { standardOptions, type ToolInteractionRequest } from '@tollgate/protocol';
import {
  FORGED_LINKS,
  HOSTILE,
  hostileViews,
  MASS_MENTIONS,
} from '../../../../libs/binding-core/src/testing/hostile-text.fixture';
import { renderSlackPrompt, renderSlackText } from './slack-prompt.renderer';

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
  toolName: 'write_note',
  displayText: 'Write a note: "<b>milk</b> & eggs"',
  requester: { id: 'U123', displayName: 'Alice' },
  principal: 'user',
  options: standardOptions(),
} as ToolInteractionRequest;

const actionsOf = (view: PromptView) =>
  renderSlackPrompt(view, 'ref123').blocks.filter((b) => b.type === 'actions');
const textOf = (view: PromptView) => JSON.stringify(renderSlackPrompt(view, 'ref123').blocks);

describe('Slack prompt renderer', () => {
  it('shows tool, request and requester, and one button per option with the prompt ref', () => {
    const message = renderSlackPrompt({ kind: 'pending', request }, 'ref123');
    const section = JSON.stringify(message.blocks[0]);
    expect(section).toContain('write_note');
    expect(section).toContain('&lt;b&gt;milk&lt;/b&gt; &amp; eggs');
    expect(section).toContain('<@U123>');
    const [actions] = actionsOf({ kind: 'pending', request });
    expect(actions?.elements).toEqual([
      expect.objectContaining({
        action_id: 'tollgate:approve_once',
        value: 'ref123',
        style: 'primary',
      }),
      expect.not.objectContaining({ style: expect.anything() }),
      expect.not.objectContaining({ style: expect.anything() }),
      expect.objectContaining({ action_id: 'tollgate:deny', style: 'danger' }),
    ]);
    expect(message.text).toContain('write_note');
  });

  it('keeps the buttons and says "still valid" after a restart', () => {
    expect(actionsOf({ kind: 'refreshed', request })).toHaveLength(1);
    expect(textOf({ kind: 'refreshed', request })).toMatch(/restart.*still valid/);
  });

  it.each([
    [
      { kind: 'abandoned', request, reason: 'superseded by a newer message' } as const,
      'superseded',
    ],
    [{ kind: 'expired', request, reason: 'this request has expired' } as const, 'expired'],
    [
      {
        kind: 'resolved',
        request,
        optionKey: 'approve_once',
        label: 'Approve once',
        resolvedBy: { id: 'U999' },
      } as const,
      'Approve once* by <@U999>',
    ],
  ])('removes the buttons once the prompt is %s', (view, shown) => {
    expect(actionsOf(view)).toHaveLength(0);
    expect(textOf(view)).toContain(shown);
  });

  it('truncates a long display text to the section limit', () => {
    const long = { ...request, displayText: 'x'.repeat(12_000) };
    const section = renderSlackPrompt({ kind: 'pending', request: long }, 'r').blocks[0] as {
      text: { text: string };
    };
    expect(section.text.text.length).toBeLessThanOrEqual(3_000);
  });
});

describe('X5 — Slack: text cannot ping or forge links', () => {
  const resolver = { id: 'U0APPROVER', displayName: 'Approver' };
  const legit = ['<@U123>', '<@U0APPROVER>'];

  /** Every field Slack reads as mrkdwn: section and context text, and the fallback text. */
  function mrkdwnOf(view: PromptView): string[] {
    const message = renderSlackPrompt(view, 'ref123');
    return [
      message.text,
      ...message.blocks.flatMap((block) => {
        if (block.type === 'section') return [block.text?.text ?? ''];
        if (block.type === 'context') {
          return block.elements.map((e) => ('text' in e ? e.text : ''));
        }
        return [];
      }),
    ];
  }

  function expectInert(text: string) {
    const rest = legit.reduce((t, mention) => t.split(mention).join(''), text);
    // No special mention, user, channel or link markup survives: <!…>, <@…>, <#…>, <http…|…>.
    expect(rest).not.toMatch(/<[!@#]|<https?:/);
    expect(text).not.toMatch(/@(channel|here|all|everyone)/i);
  }

  it.each(MASS_MENTIONS)('X5 %s in any field mentions no one', (attack) => {
    for (const view of hostileViews(request, attack, resolver)) {
      for (const text of mrkdwnOf(view)) expectInert(text);
    }
    expectInert(renderSlackText(`reply ${attack}`));
  });

  it.each(FORGED_LINKS)('X5 %j shows its real address, behind no other text', (attack) => {
    for (const view of hostileViews(request, attack, resolver)) {
      const texts = mrkdwnOf(view);
      for (const text of texts) expectInert(text);
      expect(texts.join('\n')).toContain('evil.example');
    }
    expect(renderSlackText(attack)).toContain('evil.example');
    expectInert(renderSlackText(attack));
  });

  it('X5 the resolver mention in the Resolved banner still renders as a mention', () => {
    const [resolved] = hostileViews(request, HOSTILE, resolver).filter(
      (v) => v.kind === 'resolved',
    );
    const status = mrkdwnOf(resolved).find((t) => t.includes(' by '));
    expect(status).toMatch(/ by <@U0APPROVER>$/);
  });

  it("S19 a sub-agent's prompt names the sub-agent and the parent call, made inert", () => {
    const agent = { name: '<!channel> scribe', parentCallId: 'call_2_1' };
    const section = JSON.stringify(
      renderSlackPrompt({ kind: 'pending', request: { ...request, agent } }, 'ref123').blocks[0],
    );
    expect(section).toContain('sub-agent &lt;!channel&gt; scribe (for call call_2_1)');
    expect(JSON.stringify(renderSlackPrompt({ kind: 'pending', request }, 'ref123'))).not.toContain(
      'sub-agent',
    );
  });
});

describe('S22 a text addressed to a person (a reminder)', () => {
  it('S22 starts with the real mention of its addressee; the text stays inert', () => {
    const text = renderSlackText('Reminder <!channel> <@U0OTHER>', { id: 'U0S22ADA' });
    expect(text.startsWith('<@U0S22ADA> ')).toBe(true);
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<@U0OTHER>');
    expect(renderSlackText('Reminder')).toBe('Reminder');
  });
});

describe('A4 — slack: what will run stays readable', () => {
  it('A4 a prompt text past the limit once escaped keeps its last lines and its hash; the arguments give way', () => {
    const text: string = JSON.parse(
      JSON.stringify(
        renderSlackPrompt(
          { kind: 'pending', request: { ...request, displayText: oversizedPromptText() } },
          'r',
        ).blocks[0],
      ),
    ).text.text as string;
    expect([...text].length).toBeLessThanOrEqual(3000);
    expect(text).toContain('Arguments hash: sha256:0123456789ab');
    expect(text).toContain('Approvers: Ada (U1)');
    expect(text).toMatch(/more characters\)/);
    expect(text).toContain('Requested by');
  });
});

describe('G1 a prompt with a quorum on Slack', () => {
  const tallied = {
    ...request,
    quorum: {
      required: 2,
      approvals: [{ by: { id: 'U0ALICE', displayName: 'Alice' }, at: request.occurredAt }],
      waitingFor: [{ id: 'U0BOB' }, { id: 'U0CAROL' }],
    },
  } as ToolInteractionRequest;
  const contextOf = (view: PromptView) =>
    JSON.stringify(renderSlackPrompt(view, 'ref123').blocks.filter((b) => b.type === 'context'));

  it('G1 shows the live tally under the buttons, edited in place, and keeps it after a restart', () => {
    expect(actionsOf({ kind: 'pending', request: tallied })).toHaveLength(1);
    expect(contextOf({ kind: 'pending', request: tallied })).toContain(
      '1 of 2 approvals: ✓ <@U0ALICE> · waiting for <@U0BOB>, <@U0CAROL> (1 needed)',
    );
    expect(contextOf({ kind: 'refreshed', request: tallied })).toMatch(
      /still valid.*1 of 2 approvals/s,
    );
  });

  it('G1 the decision names every approver; a veto names whom it overruled', () => {
    const approvals = [
      { by: { id: 'U0ALICE' }, at: request.occurredAt },
      { by: { id: 'U0BOB' }, at: request.occurredAt },
    ];
    const base = { kind: 'resolved', request: tallied, label: 'Approve once' } as const;
    expect(
      contextOf({ ...base, optionKey: 'approve_once', resolvedBy: { id: 'U0BOB' }, approvals }),
    ).toContain('*Approve once* by <@U0ALICE>, <@U0BOB>');
    expect(
      contextOf({
        ...base,
        optionKey: 'deny',
        label: 'Deny',
        resolvedBy: { id: 'U0CAROL' },
        approvals: approvals.slice(0, 1),
      }),
    ).toContain('*Deny* by <@U0CAROL>, a veto overruling ✓ <@U0ALICE>');
  });
});
