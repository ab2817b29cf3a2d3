import type { PromptView } from '@tollgate/binding-core';
import { oversizedPromptText } from '../../../../libs/binding-core/src/testing/prompt-text.fixture';
import { standardOptions, type ToolInteractionRequest } from '@tollgate/protocol';
import { verifyActionContext } from '../inbound/action-signature';
import {
  FORGED_LINKS,
  HOSTILE,
  hostileViews,
  MASS_MENTIONS,
} from '../../../../libs/binding-core/src/testing/hostile-text.fixture';
import {
  actionIdOf,
  mention,
  MESSAGE_RUNE_LIMIT,
  PROMPT_REF_PROP,
  MissingPostNonce,
  renderMattermostPrompt,
  renderMattermostText,
} from './mattermost-prompt.renderer';

const NONCE = '0123456789abcdef0123456789abcdef';

const SETTINGS = {
  actionUrl: 'https://tollgate.example/mattermost/actions',
  actionSecret: 'renderer-spec-secret-0123456789',
};

const request: ToolInteractionRequest = {
  type: 'ToolInteractionRequest',
  v: 1,
  id: 'mattermost-abc:5:0',
  sessionId: 'mattermost-abc',
  conversation: {
    platform: 'mattermost',
    workspaceId: 'team',
    channelId: 'chan',
    threadId: 'root',
  },
  occurredAt: '2026-11-29T00:00:00.000Z',
  seq: 5,
  callId: 'call_1',
  batchId: 'batch_1',
  toolName: 'write_note',
  displayText: 'Write a note: "hello"',
  requester: { id: 'u1alice', displayName: 'alice' },
  principal: 'user',
  options: standardOptions(),
};

function render(view: PromptView) {
  return renderMattermostPrompt(view, { promptRef: 'ref123', postNonce: NONCE }, SETTINGS);
}

describe('renderMattermostPrompt', () => {
  it('a pending prompt names the tool, the request and @requester, with one signed button per option', () => {
    const post = render({ kind: 'pending', request });
    expect(post.message).toContain('`write_note`');
    expect(post.message).toContain('> Write a note: "hello"');
    expect(post.message).toContain('@alice');
    expect(post.props[PROMPT_REF_PROP]).toBe('ref123');
    const [attachment] = post.props.attachments;
    expect(attachment.color).toMatch(/^#[0-9a-f]{6}$/i);
    const actions = attachment.actions!;
    expect(actions.map((a) => [a.id, a.name, a.style])).toEqual([
      ['approveonce', 'Approve once', 'primary'],
      ['approvesession', 'Allow in this chat', 'default'],
      ['approvealways', 'Always allow', 'default'],
      ['deny', 'Deny', 'danger'],
    ]);
    for (const action of actions) {
      expect(action.id).toMatch(/^[A-Za-z0-9]+$/);
      expect(action.type).toBe('button');
      expect(action.integration.url).toBe(SETTINGS.actionUrl);
      const verdict = verifyActionContext(SETTINGS.actionSecret, action.integration.context);
      expect(verdict).toMatchObject({
        ok: true,
        context: { sessionId: 'mattermost-abc', callId: 'call_1', nonce: NONCE },
      });
    }
    expect(actions[3].integration.context.optionKey).toBe('deny');
  });

  it('a refresh keeps the buttons and says the request is still valid after a restart', () => {
    const [attachment] = render({ kind: 'refreshed', request }).props.attachments;
    expect(attachment.actions).toHaveLength(4);
    expect(attachment.text).toMatch(/restart/i);
    expect(attachment.text).toMatch(/still valid/i);
  });

  it.each([
    [{ kind: 'abandoned', request, reason: 'superseded by a newer message' }, /superseded/],
    [{ kind: 'expired', request, reason: 'this request has expired' }, /expired/],
    [
      {
        kind: 'resolved',
        request,
        optionKey: 'deny',
        label: 'Deny',
        resolvedBy: { id: 'u2bob', displayName: 'bob' },
      },
      /\*\*Deny\*\* by @bob/,
    ],
  ] as Array<[PromptView, RegExp]>)('%o is shown without any action', (view, status) => {
    const post = render(view);
    const [attachment] = post.props.attachments;
    expect(attachment).not.toHaveProperty('actions');
    expect(attachment.text).toMatch(status);
    expect(JSON.stringify(post)).not.toContain('integration');
    expect(post.props[PROMPT_REF_PROP]).toBe('ref123');
  });

  it('names a person without a username by name or id, never as a mention', () => {
    const post = render({
      kind: 'pending',
      request: { ...request, requester: { id: 'u9', displayName: 'Jo *Bold* Doe' } },
    });
    expect(post.message).toContain('Requested by Jo \\*Bold\\* Doe');
    const byId = render({ kind: 'pending', request: { ...request, requester: { id: 'u9' } } });
    expect(byId.message).toContain('Requested by u9');
  });

  it('truncates the message to the server limit in runes, the request text giving way', () => {
    const long = '😀'.repeat(MESSAGE_RUNE_LIMIT + 10);
    const post = render({ kind: 'pending', request: { ...request, displayText: long } });
    expect([...post.message].length).toBeLessThanOrEqual(MESSAGE_RUNE_LIMIT);
    expect([...post.message].length).toBeGreaterThan(MESSAGE_RUNE_LIMIT - 40);
    expect(post.message).toMatch(/… \(\d+ more characters\)\nRequested by /);
  });

  it('X3 binds every button to the post nonce, and will not show buttons without one', () => {
    const actions = render({ kind: 'pending', request }).props.attachments[0].actions!;
    expect(actions.every((a) => a.integration.context.nonce === NONCE)).toBe(true);
    expect(() =>
      renderMattermostPrompt({ kind: 'pending', request }, { promptRef: 'ref123' }, SETTINGS),
    ).toThrow(MissingPostNonce);
    // A cleared prompt has no buttons, so it needs no nonce.
    const expired = renderMattermostPrompt(
      { kind: 'expired', request },
      { promptRef: 'ref123' },
      SETTINGS,
    );
    expect(expired.props.attachments[0]).not.toHaveProperty('actions');
  });

  it('makes action ids letters and digits only', () => {
    expect(actionIdOf('approve_once')).toBe('approveonce');
    expect(actionIdOf('a-b:c.d')).toBe('abcd');
    expect(actionIdOf('___')).toBe('option');
  });
});

describe('X5 — Mattermost: text cannot ping or forge links', () => {
  const resolver = { id: 'u9approver', displayName: 'approver' };

  /** The fields the server scans for mentions: the message and the attachment text. */
  function mentionFieldsOf(view: PromptView): string[] {
    const post = render(view);
    return [post.message, ...post.props.attachments.map((a) => a.text)];
  }

  function expectInert(text: string) {
    // The server's channel-wide mentions, and any @username but the two the binding writes.
    expect(text).not.toMatch(/@(channel|all|here|everyone)/i);
    expect(text.replace(/@(alice|approver)\b/g, '')).not.toMatch(/@[a-z0-9]/i);
    // A Markdown link needs `](`, `][` or `]:`.
    expect(text).not.toMatch(/\][([:]/);
  }

  it.each(MASS_MENTIONS)('X5 %s in any field mentions no one', (attack) => {
    for (const view of hostileViews(request, attack, resolver)) {
      for (const text of mentionFieldsOf(view)) expectInert(text);
    }
    expectInert(renderMattermostText(`reply ${attack}`));
  });

  it.each(FORGED_LINKS)('X5 %j shows its real address, behind no other text', (attack) => {
    for (const view of hostileViews(request, attack, resolver)) {
      const texts = mentionFieldsOf(view);
      for (const text of texts) expectInert(text);
      expect(texts.join('\n')).toContain('evil.example');
    }
    expectInert(renderMattermostText(attack));
    expect(renderMattermostText(attack)).toContain('https://evil.example/');
  });

  it.each(['channel', 'all', 'here', 'Channel'])(
    'X5 a person named %s is never written as an @-mention',
    (name) => {
      expect(mention({ id: 'u1', displayName: name })).not.toMatch(/^@/);
      expectInert(mention({ id: 'u1', displayName: name }));
    },
  );

  it('X5 the resolver mention in the Resolved banner still renders as a mention', () => {
    const [resolved] = hostileViews(request, HOSTILE, resolver).filter(
      (v) => v.kind === 'resolved',
    );
    expect(render(resolved).props.attachments[0]?.text).toMatch(/ by @approver$/);
  });

  it("S19 a sub-agent's prompt names the sub-agent and the parent call, made inert", () => {
    const agent = { name: '@all scribe', parentCallId: 'call_2_1' };
    const post = render({ kind: 'pending', request: { ...request, agent } });
    expect(post.message).toMatch(/sub-agent @\u200ball scribe \(for call call_2_1\)/);
    expect(render({ kind: 'pending', request }).message).not.toContain('sub-agent');
  });
});

describe('S22 a text addressed to a person (a reminder)', () => {
  it('S22 starts with the real @username mention of its addressee; the text stays inert', () => {
    const text = renderMattermostText('Reminder @channel @bob', { id: 'u1', displayName: 'ada' });
    expect(text.startsWith('@ada ')).toBe(true);
    expect(text).not.toContain('@channel');
    expect(text).not.toContain('@bob');
    expect(renderMattermostText('Reminder')).toBe('Reminder');
  });
});

describe('A4 — mattermost: what will run stays readable', () => {
  it('A4 a prompt text past the limit once escaped keeps its last lines and its hash; the arguments give way', () => {
    const text: string = render({
      kind: 'pending',
      request: { ...request, displayText: oversizedPromptText() },
    }).message;
    expect([...text].length).toBeLessThanOrEqual(16383);
    expect(text).toContain('Arguments hash: sha256:0123456789ab');
    expect(text).toContain('Approvers: Ada (U1)');
    expect(text).toMatch(/more characters\)/);
    expect(text).toContain('Requested by');
  });
});

describe('G1 a prompt with a quorum on Mattermost', () => {
  const tallied: ToolInteractionRequest = {
    ...request,
    quorum: {
      required: 2,
      approvals: [{ by: { id: 'u1alice', displayName: 'alice' }, at: request.occurredAt }],
      waitingFor: [{ id: 'u2bob', displayName: 'bob' }],
    },
  };

  it('G1 shows the live tally in the attachment with the buttons, and keeps it after a restart', () => {
    const [pending] = render({ kind: 'pending', request: tallied }).props.attachments;
    expect(pending?.actions).not.toHaveLength(0);
    expect(pending?.text).toMatch(/^1 of 2 approvals: ✓ .*alice.* · waiting for .*bob/);
    const [refreshed] = render({ kind: 'refreshed', request: tallied }).props.attachments;
    expect(refreshed?.text).toMatch(/still valid\.\n1 of 2 approvals/);
  });
});
