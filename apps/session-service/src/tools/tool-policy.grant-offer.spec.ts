import { parseToolPolicy, ToolPolicyFileError } from './tool-policy.loader';
import { builtInTools } from './tool-registry';

function policy(...lines: string[]) {
  return parseToolPolicy(['tools:', ...lines].join('\n'), 'policy.yaml', builtInTools());
}

function problems(...lines: string[]): string[] {
  try {
    policy(...lines);
  } catch (error) {
    if (error instanceof ToolPolicyFileError) return error.message.split('; ');
    throw error;
  }
  throw new Error('the policy loaded');
}

describe('G3 — what "Always allow" gives, in the tool policy', () => {
  it('G3 an offer labels the "Always allow" button and leaves the other options alone', () => {
    const entry = policy(
      '  write_note:',
      '    mode: approval',
      '    always: { scope: { text: { prefix: /srv/notes } }, ttl: 8h, uses: 2 }',
    ).entryFor('write_note');
    expect(entry?.options.map((o) => o.label)).toEqual([
      'Approve once',
      'Allow in this chat',
      'Always allow text under /srv/notes · 8h · 2 uses',
      'Deny',
    ]);
    expect(entry?.always).toMatchObject({ ttlMs: 8 * 3_600_000, uses: 2 });
  });

  it('G3 an offer may name its own label, and one use is "1 use"', () => {
    expect(
      policy('  write_note: { mode: approval, always: { uses: 1 } }').entryFor('write_note')
        ?.options[2]?.label,
    ).toBe('Always allow · 1 use');
    expect(
      policy('  write_note: { mode: approval, always: { ttl: 1h, label: Allow for an hour } }')
        .entryFor('write_note')
        ?.options.find((o) => o.key === 'approve_always')?.label,
    ).toBe('Allow for an hour');
  });

  it.each([
    [
      '  write_note: { mode: approval, always: { scope: { text: { prefix: rel } } } }',
      /line 2: tools\.write_note\.always\.scope .*"text": prefix must be an absolute, normalised directory/,
    ],
    [
      '  write_note: { mode: approval, always: { scope: { text: { pattern: "(a+)+" } } } }',
      /always\.scope .*must not repeat a group/,
    ],
    ['  write_note: { mode: approval, always: { ttl: 8 } }', /always\.ttl .*must be a duration/],
    ['  write_note: { mode: approval, always: { uses: 0 } }', /always\.uses .*must be at least 1/],
    ['  write_note: { mode: approval, always: {} }', /needs a scope, a ttl or uses/],
    [
      '  write_note: { mode: approval, always: { uses: 2, forever: true } }',
      /unknown field "forever"/,
    ],
    [
      '  write_note: { mode: approval, options: [approve_once, deny], always: { uses: 2 } }',
      /always .*only applies to a tool whose prompt offers approve_always/,
    ],
    ['  write_note: { mode: auto, always: { uses: 2 } }', /only applies to a tool whose prompt/],
    [
      `  write_note: { mode: approval, always: { scope: { text: { prefix: /${'a'.repeat(60)} } } } }`,
      /makes a button label of \d+ characters \(at most 75\): set a shorter label/,
    ],
  ])('G3 refuses %s', (line, expected) => {
    expect(problems(line).join('; ')).toMatch(expected);
  });
});
