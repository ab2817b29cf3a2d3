import { parseToolPolicy, ToolPolicyFileError } from './tool-policy.loader';
import { builtInTools } from './tool-registry';

const registry = builtInTools();

function problems(...lines: string[]): string[] {
  try {
    parseToolPolicy(lines.join('\n'), 'policy.yaml', registry);
  } catch (error) {
    if (error instanceof ToolPolicyFileError) return error.message.split('; ');
    throw error;
  }
  throw new Error('the policy loaded');
}

describe('G2 — editable arguments in the tool policy', () => {
  it('G2 a tool lists its editable arguments, each with its constraint parsed', () => {
    const policy = parseToolPolicy(
      [
        'tools:',
        '  write_note:',
        '    mode: approval',
        '    editable:',
        '      text: { prefix: /srv/notes }',
        '      mode: { enum: [read, append] }',
      ].join('\n'),
      'policy.yaml',
      registry,
    );
    expect(policy.entryFor('write_note')?.editable).toEqual([
      { name: 'text', constraint: { kind: 'prefix', directory: '/srv/notes' } },
      { name: 'mode', constraint: { kind: 'enum', values: ['read', 'append'] } },
    ]);
    expect(policy.entryFor('echo')?.editable).toBeUndefined();
  });

  it('G2 a constraint that is not one of the forms names the file and the line', () => {
    expect(
      problems(
        'tools:',
        '  write_note:',
        '    mode: approval',
        '    editable:',
        '      text: { prefix: /srv/../etc }',
      ),
    ).toEqual([
      expect.stringMatching(/^policy\.yaml line 5: tools\.write_note\.editable\.text .*normalised/),
    ]);
  });

  it('G2 an edit approves once: not on a tool that never prompts, nor without approve_once, nor with a quorum', () => {
    expect(
      problems('tools:', '  echo:', '    mode: auto', '    editable: { text: { max: 1 } }'),
    ).toEqual([
      'policy.yaml line 4: tools.echo.editable only applies to a tool whose mode is approval (this one is auto)',
    ]);
    expect(
      problems(
        'tools:',
        '  write_note:',
        '    mode: approval',
        '    options: [approve_always, deny]',
        '    editable: { text: { max: 1 } }',
      ),
    ).toEqual([
      'policy.yaml line 5: tools.write_note.editable needs approve_once among the options (an edit approves once)',
    ]);
    expect(
      problems(
        'tools:',
        '  write_note:',
        '    mode: approval',
        '    quorum: 2',
        '    editable: { text: { max: 1 } }',
      ),
    ).toEqual([
      'policy.yaml line 5: tools.write_note.editable cannot be combined with a quorum or separateApprover',
    ]);
  });
});
