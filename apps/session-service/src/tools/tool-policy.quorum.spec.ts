import { STANDARD_OPTIONS } from '@tollgate/protocol';
import { parseToolPolicy, ToolPolicyFileError } from './tool-policy.loader';
import { builtInTools } from './tool-registry';

const registry = builtInTools();

function load(lines: readonly string[]) {
  return parseToolPolicy(lines.join('\n'), 'policy.yaml', registry);
}

function problem(lines: readonly string[]): string {
  try {
    load(lines);
  } catch (error) {
    if (error instanceof ToolPolicyFileError) return error.message;
    throw error;
  }
  throw new Error('the policy loaded');
}

describe('G1 tool policy: quorum, approvers and separateApprover', () => {
  it("G1 reads platform groups among the approvers, apart from persons, and leaves their quorum to the binding's resolution", () => {
    const policy = load([
      'tools:',
      '  write_note:',
      '    mode: approval',
      '    quorum: 3',
      '    approvers: [U_ALICE, { group: S0OPS, name: ops }]',
    ]);
    expect(policy.entryFor('write_note')).toEqual({
      mode: 'approval',
      options: [STANDARD_OPTIONS.approve_once, STANDARD_OPTIONS.deny],
      quorum: {
        required: 3,
        separateApprover: false,
        approvers: [{ id: 'U_ALICE' }],
        approverGroups: [{ id: 'S0OPS', name: 'ops' }],
      },
    });
    // A group alone makes a rule of its own: only its members approve.
    expect(
      load(['tools:', '  write_note: { mode: approval, approvers: [{ group: S0OPS }] }']).entryFor(
        'write_note',
      )?.quorum,
    ).toEqual({ required: 1, separateApprover: false, approverGroups: [{ id: 'S0OPS' }] });
  });

  it('G1 reads a quorum of named approvers, offering only approve once and deny by default', () => {
    const policy = load([
      'tools:',
      '  write_note:',
      '    mode: approval',
      '    quorum: 2',
      '    approvers: [U_ALICE, { id: U_BOB, name: Bob }, U_CAROL]',
      '    separateApprover: true',
    ]);
    expect(policy.entryFor('write_note')).toEqual({
      mode: 'approval',
      options: [STANDARD_OPTIONS.approve_once, STANDARD_OPTIONS.deny],
      quorum: {
        required: 2,
        separateApprover: true,
        approvers: [{ id: 'U_ALICE' }, { id: 'U_BOB', displayName: 'Bob' }, { id: 'U_CAROL' }],
      },
    });
  });

  it('G1 quorum 1 without approvers or separateApprover is no rule: every default stays', () => {
    const policy = load(['tools:', '  write_note: { mode: approval, quorum: 1 }']);
    expect(policy.entryFor('write_note')?.quorum).toBeUndefined();
    expect(policy.entryFor('write_note')?.options).toHaveLength(4);
  });

  it('G1 refuses a quorum its named approvers cannot reach, naming the line', () => {
    expect(
      problem([
        'tools:',
        '  write_note:',
        '    mode: approval',
        '    quorum: 3',
        '    approvers: [A, B]',
      ]),
    ).toBe(
      'policy.yaml line 4: tools.write_note.quorum needs 3 distinct approvers but approvers names 2',
    );
  });

  it('G1 refuses a grant option next to a quorum: one person would stand in for the others', () => {
    expect(
      problem([
        'tools:',
        '  write_note:',
        '    mode: approval',
        '    quorum: 2',
        '    options: [approve_once, approve_always, deny]',
      ]),
    ).toContain(
      'tools.write_note.options[1] cannot be offered with a quorum, approvers or separateApprover',
    );
  });

  it('G1 refuses quorum fields on a tool that never prompts, and nonsense values', () => {
    expect(problem(['tools:', '  echo: { mode: auto, quorum: 2 }'])).toContain(
      'tools.echo.quorum only applies to a tool whose mode is approval',
    );
    expect(problem(['tools:', '  write_note: { mode: approval, quorum: 0 }'])).toContain(
      'tools.write_note.quorum must be at least 1',
    );
    expect(problem(['tools:', '  write_note: { mode: approval, approvers: [A, A] }'])).toContain(
      'tools.write_note.approvers[1] names A twice',
    );
    expect(
      problem(['tools:', '  write_note: { mode: approval, approvers: [{ team: S01 }] }']),
    ).toContain(
      'tools.write_note.approvers[0] must be a person id, { id, name } or { group, name }',
    );
    expect(
      problem([
        'tools:',
        '  write_note: { mode: approval, approvers: [{ group: S01 }, { group: S01 }] }',
      ]),
    ).toContain('tools.write_note.approvers[1] names S01 twice');
    expect(
      problem(['tools:', '  write_note: { mode: approval, separateApprover: "yes" }']),
    ).toContain('tools.write_note.separateApprover must be true or false');
  });
});
