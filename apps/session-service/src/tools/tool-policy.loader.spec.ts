import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STANDARD_OPTIONS } from '@tollgate/protocol';
import { ConfigError } from '@tollgate/service-runtime';
import {
  loadToolPolicy,
  parseToolPolicy,
  ToolPolicyFileError,
  withToolPolicy,
} from './tool-policy.loader';
import { builtInTools } from './tool-registry';

const registry = builtInTools();

function failure(text: string, file = 'policy.yaml'): ToolPolicyFileError {
  try {
    parseToolPolicy(text, file, registry);
  } catch (error) {
    if (error instanceof ToolPolicyFileError) return error;
    throw error;
  }
  throw new Error('the policy loaded');
}

describe('tool policy file (TOOL_POLICY_FILE)', () => {
  describe('a good file', () => {
    it('gives each tool its mode and its options in canonical order', () => {
      const policy = parseToolPolicy(
        [
          'tools:',
          '  echo:',
          '    mode: deny',
          '  write_note:',
          '    mode: approval',
          '    options: [deny, approve_always, approve_once]',
        ].join('\n'),
        'policy.yaml',
        registry,
      );
      expect(policy.entryFor('echo')?.mode).toBe('deny');
      expect(policy.entryFor('write_note')).toEqual({
        mode: 'approval',
        options: [
          STANDARD_OPTIONS.approve_once,
          STANDARD_OPTIONS.approve_always,
          STANDARD_OPTIONS.deny,
        ],
      });
    });

    it('offers all four options when a tool lists none', () => {
      const policy = parseToolPolicy(
        'tools: { write_note: { mode: approval }, echo: { mode: auto } }',
        'p.yaml',
        registry,
      );
      expect(policy.entryFor('write_note')?.options.map((o) => o.key)).toEqual([
        'approve_once',
        'approve_session',
        'approve_always',
        'deny',
      ]);
    });

    it('reads JSON the same way', () => {
      const policy = parseToolPolicy(
        JSON.stringify({ tools: { echo: { mode: 'approval', options: ['approve_once'] } } }),
        'policy.json',
        registry,
      );
      expect(policy.entryFor('echo')).toEqual({
        mode: 'approval',
        options: [STANDARD_OPTIONS.approve_once],
      });
    });

    it('refuses by policy a registry tool the file leaves out, and knows no other tool', () => {
      const policy = parseToolPolicy('tools:\n  echo:\n    mode: auto\n', 'p.yaml', registry);
      expect(policy.entryFor('write_note')?.mode).toBe('deny');
      expect(policy.entryFor('rm_rf')).toBeUndefined();
    });
  });

  describe('a bad file names the file and the line', () => {
    it('an unknown mode', () => {
      const error = failure(
        ['tools:', '  echo:', '    mode: auto', '  write_note:', '    mode: sometimes'].join('\n'),
      );
      expect(error.message).toBe(
        'policy.yaml line 5: tools.write_note.mode must be auto, approval or deny, not "sometimes"',
      );
    });

    it('an unknown option, at its own line in a block list', () => {
      const error = failure(
        [
          'tools:',
          '  write_note:',
          '    mode: approval',
          '    options:',
          '      - approve_once',
          '      - approve_forever',
        ].join('\n'),
      );
      expect(error.problems).toEqual([
        {
          line: 6,
          problem:
            'tools.write_note.options[1] must be approve_once, approve_session, approve_always or deny, not "approve_forever"',
        },
      ]);
    });

    it('a tool the service does not have, naming it', () => {
      const error = failure(
        ['tools:', '  echo:', '    mode: auto', '  rm_rf:', '    mode: approval'].join('\n'),
      );
      expect(error.message).toBe(
        'policy.yaml line 4: tools.rm_rf is not a tool this service has (it has echo, write_note, delegate)',
      );
    });

    it('a YAML syntax error', () => {
      const misaligned = failure(
        ['tools:', '  echo:', '    mode: auto', '   write_note:', '    mode: deny'].join('\n'),
      );
      expect(misaligned.message).toBe(
        'policy.yaml line 4: not valid YAML or JSON: All mapping items must start at the same column',
      );
      const tabbed = failure(['tools:', '  echo:', '\tmode: auto'].join('\n'));
      expect(tabbed.problems[0]?.line).toBe(3);
      expect(tabbed.message).toContain('Tabs are not allowed as indentation');
    });

    it('a JSON syntax error', () => {
      const error = failure(
        ['{', '  "tools": {', '    "echo": { "mode": "auto" },,', '  }', '}'].join('\n'),
        'policy.json',
      );
      expect(error.message).toMatch(/^policy\.json line 3: not valid YAML or JSON/);
    });

    it('a wrong value in a JSON file', () => {
      const error = failure(
        ['{', '  "tools": {', '    "echo": {', '      "mode": "always"', '    }', '  }', '}'].join(
          '\n',
        ),
        'policy.json',
      );
      expect(error.message).toBe(
        'policy.json line 4: tools.echo.mode must be auto, approval or deny, not "always"',
      );
    });

    it('an unknown field, at the field', () => {
      const error = failure(['tools:', '  echo:', '    mode: auto', '    timeout: 5'].join('\n'));
      expect(error.message).toBe('policy.yaml line 4: tools.echo has unknown field "timeout"');
    });

    it('a missing mode, at the tool', () => {
      const error = failure(['tools:', '  echo:', '    options: [deny]'].join('\n'));
      expect(error.message).toBe('policy.yaml line 2: tools.echo.mode is required');
    });

    it('an option listed twice, and an approval with nothing to click', () => {
      const error = failure(
        [
          'tools:',
          '  echo:',
          '    mode: approval',
          '    options: []',
          '  write_note:',
          '    mode: approval',
          '    options:',
          '      - deny',
          '      - deny',
        ].join('\n'),
      );
      expect(error.problems).toEqual([
        {
          line: 4,
          problem: 'tools.echo.options must offer at least one option when the mode is approval',
        },
        { line: 9, problem: 'tools.write_note.options[1] lists deny twice' },
      ]);
    });

    it('an alias to no anchor', () => {
      expect(failure('tools: *elsewhere\n').message).toMatch(
        /^policy\.yaml: cannot be read as data: Unresolved alias/,
      );
    });

    it('an empty file, or one without tools', () => {
      expect(failure('').message).toBe(
        'policy.yaml line 1: the file must be a map with a tools entry',
      );
      expect(failure('# nothing\nrules: {}\n').message).toBe(
        'policy.yaml line 2: tools is required; policy.yaml line 2: the file has unknown field "rules"',
      );
    });
  });

  describe('loading at start', () => {
    let dir: string;
    beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'tollgate-policy-'))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reads the file it is given', () => {
      const file = join(dir, 'policy.yml');
      writeFileSync(file, 'tools:\n  echo:\n    mode: deny\n');
      expect(loadToolPolicy(file, registry).entryFor('echo')?.mode).toBe('deny');
    });

    it('a missing file says so', () => {
      const file = join(dir, 'absent.yaml');
      expect(() => loadToolPolicy(file, registry)).toThrow(`${file}: cannot be read (ENOENT)`);
    });

    it('turns a bad file into a configuration error naming TOOL_POLICY_FILE', () => {
      const file = join(dir, 'bad.yaml');
      writeFileSync(file, 'tools:\n  echo:\n    mode: nope\n');
      const load = () => withToolPolicy({ TOOL_POLICY_FILE: file }, registry);
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(`TOOL_POLICY_FILE: ${file} line 3: tools.echo.mode must be`);
    });

    it('falls back to the built-in policy without a file', () => {
      const config = withToolPolicy({}, registry);
      expect(config.toolPolicy.entryFor('write_note')?.mode).toBe('approval');
    });
  });
});
