import type { PromptView } from '@tollgate/binding-core';
import { oversizedPromptText } from '../../../../libs/binding-core/src/testing/prompt-text.fixture';
import { standardOptions, type ToolInteractionRequest } from '@tollgate/protocol';
import {
  FORGED_LINKS,
  HOSTILE,
  hostileViews,
  MASS_MENTIONS,
} from '../../../../libs/binding-core/src/testing/hostile-text.fixture';
import {
  CONTENT_LIMIT,
  parseCustomId,
  renderDiscordPrompt,
  renderDiscordText,
} from './discord-prompt.renderer';

const request = {
  type: 'ToolInteractionRequest',
  v: 1,
  id: 'discord-abc:5:0',
  sessionId: 'discord-abc',
  conversation: { platform: 'discord', workspaceId: 'G1', channelId: '123', threadId: '' },
  occurredAt: '2026-11-29T00:00:00.000Z',
  seq: 5,
  callId: 'call_2_1',
  batchId: 'batch_3',
  toolName: 'write_note',
  displayText: 'Write a note: "**milk** @everyone <@1>"',
  requester: { id: '80351110224678912', displayName: 'Alice' },
  principal: 'user',
  options: standardOptions(),
} as ToolInteractionRequest;

const render = (view: PromptView) => renderDiscordPrompt(view, 'ref123');

describe('Discord prompt renderer', () => {
  it('shows tool, call, request and requester, and one row with a button per option', () => {
    const message = render({ kind: 'pending', request });
    expect(message.content).toContain('write_note');
    expect(message.content).toContain('call_2_1');
    expect(message.content).toContain('<@80351110224678912>');
    // The request's own markdown and mentions are shown, not obeyed.
    expect(message.content).toContain('\\*\\*milk\\*\\*');
    expect(message.content).not.toContain('@everyone');
    expect(message.content).not.toContain('<@1>');
    expect(message.allowed_mentions).toEqual({ parse: [] });
    expect(message.components).toHaveLength(1);
    expect(message.components[0].components).toEqual([
      { type: 2, style: 1, label: 'Approve once', custom_id: 'tg:approve_once:ref123' },
      expect.objectContaining({ style: 2 }),
      expect.objectContaining({ style: 2 }),
      { type: 2, style: 4, label: 'Deny', custom_id: 'tg:deny:ref123' },
    ]);
  });

  it('keeps the buttons and says "still valid" after a restart', () => {
    const message = render({ kind: 'refreshed', request });
    expect(message.components).toHaveLength(1);
    expect(message.content).toMatch(/restarted.*still valid/);
  });

  it.each([
    [
      { kind: 'abandoned', request, reason: 'superseded by a newer message' } as const,
      'superseded',
    ],
    [{ kind: 'expired', request } as const, 'expired'],
    [
      {
        kind: 'resolved',
        request,
        optionKey: 'deny',
        label: 'Deny',
        resolvedBy: { id: '80351110224678913', displayName: 'Bob' },
      } as const,
      'Deny** by <@80351110224678913>',
    ],
  ])('%o clears the buttons and says so', (view, line) => {
    const message = render(view);
    expect(message.components).toEqual([]);
    expect(message.content).toContain(line);
  });

  it('names a person whose id is no snowflake by name', () => {
    const message = render({
      kind: 'resolved',
      request,
      optionKey: 'approve_once',
      label: 'Approve once',
      resolvedBy: { id: 'U_BOB', displayName: 'Bob' },
    });
    expect(message.content).toContain('**Bob** (U_BOB)');
  });

  it('stays within Discord limits, keeping the state line when the request is long', () => {
    const long = { ...request, displayText: 'x'.repeat(5_000) };
    const message = render({ kind: 'expired', request: long });
    expect(message.content.length).toBeLessThanOrEqual(CONTENT_LIMIT);
    expect(message.content).toContain('expired');
    const labelled = {
      ...request,
      options: [{ key: 'deny' as const, label: 'L'.repeat(200), style: 'danger' as const }],
    };
    const [button] = render({ kind: 'pending', request: labelled }).components[0].components;
    expect(button.label.length).toBeLessThanOrEqual(80);
  });

  it('reads a custom id back', () => {
    expect(parseCustomId('tg:approve_once:ref123')).toEqual({
      optionKey: 'approve_once',
      promptRef: 'ref123',
    });
    expect(parseCustomId('other:approve')).toBeUndefined();
    expect(parseCustomId('tg:approve')).toBeUndefined();
  });
});

describe('X5 — Discord: text cannot ping or forge links', () => {
  const resolver = { id: '112233445566778899', displayName: 'Approver' };
  const legit = ['<@80351110224678912>', '<@112233445566778899>'];

  function expectInert(text: string) {
    const rest = legit.reduce((t, mention) => t.split(mention).join(''), text);
    // Users <@id>, roles <@&id>, channels <#id>, commands </x:id>: none survives but ours.
    expect(rest).not.toMatch(/<[@#/]/);
    expect(text).not.toMatch(/@(everyone|here|channel|all)/i);
    // A masked or reference link needs `](`, `][` or `]:`.
    expect(text).not.toMatch(/\][([:]/);
  }

  it.each(MASS_MENTIONS)('X5 %s in any field mentions no one', (attack) => {
    for (const view of hostileViews(request, attack, resolver)) {
      const message = render(view);
      expectInert(message.content);
      // Discord's own guard as well: no mention in a prompt notifies anyone.
      expect(message.allowed_mentions).toEqual({ parse: [] });
    }
    expectInert(renderDiscordText(`reply ${attack}`));
  });

  it.each(FORGED_LINKS)('X5 %j shows its real address, behind no other text', (attack) => {
    for (const view of hostileViews(request, attack, resolver)) {
      const { content } = render(view);
      expectInert(content);
      expect(content).toContain('evil.example');
    }
    expectInert(renderDiscordText(attack));
    expect(renderDiscordText(attack)).toContain('https://evil.example/');
  });

  it('X5 replies keep their Markdown; only mentions and links are made inert', () => {
    expect(renderDiscordText('**done** `a[0]`')).toBe('**done** `a[0]\u200b`');
  });

  it('X5 the resolver mention in the Resolved banner still renders as a mention', () => {
    const [resolved] = hostileViews(request, HOSTILE, resolver).filter(
      (v) => v.kind === 'resolved',
    );
    expect(render(resolved).content).toMatch(/ by <@112233445566778899>$/);
  });

  it("S19 a sub-agent's prompt names the sub-agent and the parent call, made inert", () => {
    const agent = { name: '@everyone scribe', parentCallId: 'call_2_1' };
    const message = render({ kind: 'pending', request: { ...request, agent } });
    expect(message.content).toMatch(/sub-agent @\u200beveryone scribe \(for call call_2_1\)/);
    expect(render({ kind: 'pending', request }).content).not.toContain('sub-agent');
  });
});

describe('A4 — discord: what will run stays readable', () => {
  it('A4 a prompt text past the limit once escaped keeps its last lines and its hash; the arguments give way', () => {
    const text: string = render({
      kind: 'pending',
      request: { ...request, displayText: oversizedPromptText() },
    }).content;
    expect([...text].length).toBeLessThanOrEqual(2000);
    expect(text).toContain('Arguments hash: sha256:0123456789ab');
    expect(text).toContain('Approvers: Ada (U1)');
    expect(text).toMatch(/more characters\)/);
    expect(text).toContain('Requested by');
  });
});

describe('G1 a prompt with a quorum on Discord', () => {
  const tallied = {
    ...request,
    quorum: {
      required: 2,
      approvals: [
        { by: { id: '111111111111111111', displayName: 'Alice' }, at: request.occurredAt },
      ],
      waitingFor: [{ id: '222222222222222222' }],
    },
  } as ToolInteractionRequest;

  it('G1 shows the live tally with the buttons, pinging nobody, and keeps it after a restart', () => {
    const pending = render({ kind: 'pending', request: tallied });
    expect(pending.components).not.toHaveLength(0);
    expect(pending.content).toMatch(
      /1 of 2 approvals: ✓ .*111111111111111111.* · waiting for .*222222222222222222/,
    );
    expect(pending.allowed_mentions).toEqual({ parse: [] });
    expect(render({ kind: 'refreshed', request: tallied }).content).toMatch(
      /still valid\.\n1 of 2 approvals/,
    );
  });

  it('G1 the tally survives a request text at the content limit', () => {
    const long = { ...tallied, displayText: 'x'.repeat(20_000) };
    const { content } = render({ kind: 'pending', request: long });
    expect(content.length).toBeLessThanOrEqual(2_000);
    expect(content).toContain('1 of 2 approvals');
  });
});
