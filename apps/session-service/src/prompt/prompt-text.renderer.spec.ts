import { argumentsHashOf } from '@tollgate/protocol';
import { outputsOf, SessionGiven } from '../session/domain/testing/session-given';
import {
  cut,
  PROMPT_TEXT_BUDGET,
  renderPromptText,
  type PromptTextInput,
} from './prompt-text.renderer';

function input(overrides: Partial<PromptTextInput> = {}): PromptTextInput {
  const args = overrides.arguments ?? { command: 'rm -rf build', cwd: '/srv/app' };
  return {
    tool: 'Bash',
    arguments: args,
    argumentsHash: argumentsHashOf(args),
    summary: 'Clean the build folder',
    agent: { name: 'claude-code', session: 'sess-1', onBehalfOf: { id: 'U9', displayName: 'Eve' } },
    approvers: [{ id: 'U1', displayName: 'Ada' }, { id: 'U2' }],
    maxChars: 12_000,
    ...overrides,
  };
}

describe('A4 — the prompt shows what will run', () => {
  it('A4 renders the tool, the sorted arguments, the agent’s words, the agent, the approvers and the hash', () => {
    const args = { command: 'rm -rf build', cwd: '/srv/app' };
    expect(renderPromptText(input())).toBe(
      [
        'Tool: Bash',
        'Arguments:',
        '• command: rm -rf build',
        '• cwd: /srv/app',
        'Agent says: Clean the build folder',
        'Agent: claude-code · session sess-1 · on behalf of Eve (U9)',
        'Approvers: Ada (U1), U2',
        `Arguments hash: ${argumentsHashOf(args).slice(0, 19)}`,
      ].join('\n'),
    );
  });

  it('A4 holds the tool name and every short top-level argument value verbatim, markup and all', () => {
    const args = {
      z: '<!channel> *bold* `code` [bank](https://evil) @everyone',
      a: 'line one\nline two',
      n: 42,
      nested: { b: [1, 'x'], a: null },
      t: true,
    };
    const text = renderPromptText(input({ tool: 'mcp__fs__write_file', arguments: args }));
    expect(text).toContain('mcp__fs__write_file');
    for (const value of [args.z, args.a]) expect(text).toContain(value);
    expect(text).toContain('• n: 42');
    expect(text).toContain('• nested: {"a":null,"b":[1,"x"]}');
    expect(text).toContain('• t: true');
    // Keys sorted by code unit, as RFC 8785 sorts them.
    const order = ['• a:', '• n:', '• nested:', '• t:', '• z:'].map((k) => text.indexOf(k));
    expect(order).toEqual([...order].sort((x, y) => x - y));
  });

  it('A4 cuts a long value with "… (N more characters)" and keeps the short ones whole', () => {
    const long = 'x'.repeat(5_000);
    const text = renderPromptText(input({ arguments: { content: long, path: '/tmp/a' } }));
    expect(text).toContain('• path: /tmp/a');
    expect(text).toMatch(/• content: x+… \(\d+ more characters\)/);
    const shown = /• content: (x+)… \((\d+) more characters\)/.exec(text)!;
    expect(shown[1].length + Number(shown[2])).toBe(5_000);
  });

  it.each(Object.entries(PROMPT_TEXT_BUDGET))(
    'A4 fits %s’s budget and never cuts the footer',
    (_platform, maxChars) => {
      const args = Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`key${String(i).padStart(2, '0')}`, 'v'.repeat(900)]),
      );
      const text = renderPromptText(input({ arguments: args, maxChars }));
      expect(text.length).toBeLessThanOrEqual(maxChars);
      const lines = text.split('\n');
      expect(lines.at(-1)).toBe(`Arguments hash: ${argumentsHashOf(args).slice(0, 19)}`);
      expect(lines.at(-2)).toBe('Approvers: Ada (U1), U2');
      expect(lines.at(-4)).toBe('Agent says: Clean the build folder');
      expect(text).toContain('• key00: ');
    },
  );

  it('A4 keeps the agent’s words and names on one line each, so they cannot pose as the lines after them', () => {
    const text = renderPromptText(
      input({
        summary: 'fine\nApprovers: nobody\nArguments hash: sha256:000000000000',
        agent: { name: 'bot\nApprovers: x', session: 's' },
      }),
    );
    const lines = text.split('\n');
    expect(lines.filter((l) => l.startsWith('Approvers:'))).toEqual(['Approvers: Ada (U1), U2']);
    expect(lines.filter((l) => l.startsWith('Arguments hash:'))).toHaveLength(1);
    expect(lines.at(-1)).toMatch(/^Arguments hash: sha256:[0-9a-f]{12}$/);
  });

  it('A4 shows no "Agent says" line without a summary, and "any member" for an automation prompt', () => {
    const text = renderPromptText(
      input({ summary: undefined, approvers: 'any member', arguments: {} }),
    );
    expect(text).not.toContain('Agent says');
    expect(text).toContain('Arguments:\n(none)');
    expect(text).toContain('Approvers: any member of this conversation');
  });

  it('A4 cut keeps to its limit and never splits a surrogate pair', () => {
    for (const limit of [31, 40, 100]) {
      const out = cut('😀'.repeat(200), limit);
      expect(out.length).toBeLessThanOrEqual(limit);
      expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    }
    expect(cut('short', 10)).toBe('short');
  });
});

describe('A4 — the session’s own prompts too', () => {
  it('A4 a gated model call is rendered from the tool and the arguments the model gave', async () => {
    const session = new SessionGiven();
    const decision = await session.message('!write_note {"text":"<!channel> buy *milk*"}');
    const [request] = outputsOf(decision.outputs, 'ToolInteractionRequest');
    const lines = request.displayText.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'Tool: write_note',
      'Arguments:',
      '• text: <!channel> buy *milk*',
    ]);
    expect(lines.at(-3)).toBe(
      `Agent: Tollgate · session ${request.sessionId} · on behalf of Ada (U0001)`,
    );
    expect(lines.at(-2)).toBe('Approvers: Ada (U0001)');
    expect(lines.at(-1)).toBe(
      `Arguments hash: ${argumentsHashOf({ text: '<!channel> buy *milk*' }).slice(0, 19)}`,
    );
  });
});
