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

describe("G2/G1 — apiTools: the policy for the approval API's agent tools", () => {
  it('G2 given apiTools naming Write with an editable argument, when loaded, then the API entry carries the parsed constraint and the session tools are untouched', () => {
    const policy = parseToolPolicy(
      [
        'tools:',
        '  echo: { mode: auto }',
        'apiTools:',
        '  Write:',
        '    editable:',
        '      file_path: { prefix: /srv/notes }',
        '    remind: [8h, 1h]',
      ].join('\n'),
      'policy.yaml',
      registry,
    );
    expect(policy.apiEntryFor('Write')).toEqual({
      editable: [{ name: 'file_path', constraint: { kind: 'prefix', directory: '/srv/notes' } }],
      remindMs: [3_600_000, 28_800_000],
    });
    expect(policy.entryFor('Write')).toBeUndefined();
    expect(policy.entryFor('echo')).toMatchObject({ mode: 'auto' });
    expect(policy.apiEntryFor('echo')).toBeUndefined();
  });

  it('G2 given Write under tools:, when loaded, then the registry check still refuses it and names the line', () => {
    expect(problems('tools:', '  Write: { mode: approval }')).toEqual([
      expect.stringMatching(/^policy\.yaml line 2: tools\.Write is not a tool this service has/),
    ]);
  });

  it('G1 given an apiTools entry with quorum or mode, when loaded, then it is refused naming the field, the line and what an entry takes', () => {
    expect(
      problems(
        'tools: {}',
        'apiTools:',
        '  Bash:',
        '    quorum: 2',
        '    editable: { x: { max: 1 } }',
      ),
    ).toEqual([
      'policy.yaml line 4: apiTools.Bash has unknown field "quorum" (an apiTools entry takes only editable and remind: every request asks, and its quorum, approvers, options and deadline come with the request)',
    ]);
    expect(problems('tools: {}', 'apiTools:', '  Write: { mode: approval }')).toEqual([
      expect.stringMatching(/^policy\.yaml line 3: apiTools\.Write has unknown field "mode" \(/),
    ]);
  });

  it('G2 given an apiTools constraint that is not one of the forms, or no argument, when loaded, then it names the file and the line', () => {
    expect(
      problems(
        'tools: {}',
        'apiTools:',
        '  Write:',
        '    editable:',
        '      file_path: { prefix: /srv/../etc }',
      ),
    ).toEqual([
      expect.stringMatching(
        /^policy\.yaml line 5: apiTools\.Write\.editable\.file_path .*normalised/,
      ),
    ]);
    expect(problems('tools: {}', 'apiTools:', '  Write:', '    editable: {}')).toEqual([
      'policy.yaml line 4: apiTools.Write.editable must name 1 to 5 arguments, not 0',
    ]);
  });

  it('G2 given apiTools that is not a map of entries, when loaded, then it is refused', () => {
    expect(problems('tools: {}', 'apiTools: [Write]')).toEqual([
      'policy.yaml line 2: apiTools must map each tool name an agent sends to its policy',
    ]);
    expect(problems('tools: {}', 'apiTools:', '  Write: yes')).toEqual([
      'policy.yaml line 3: apiTools.Write must be a map with editable and/or remind',
    ]);
  });
});
