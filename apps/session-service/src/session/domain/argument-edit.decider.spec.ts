import { argumentsHashOf, type EditableArgument } from '@tollgate/protocol';
import { decideEdit, editableArguments } from './argument-edit.decider';

const PATH: EditableArgument = { name: 'path', value: '/srv/a', constraint: { prefix: '/srv/a' } };
const given = (editable: EditableArgument[], args: Record<string, never> | object = {}) => ({
  editable,
  arguments: { path: '/srv/a', content: 'x', ...args },
});

describe('G2 decideEdit: an approver edits arguments before approving', () => {
  it('G2 given a path editable under /srv/a, when narrowed to /srv/a/tmp, then it runs with it, bound to its hash, with the change', () => {
    const decision = decideEdit(given([PATH]), [{ name: 'path', text: '/srv/a/tmp' }]);

    expect(decision).toEqual({
      kind: 'accepted',
      arguments: { path: '/srv/a/tmp', content: 'x' },
      argumentsHash: argumentsHashOf({ content: 'x', path: '/srv/a/tmp' }),
      changes: [{ name: 'path', from: '/srv/a', to: '/srv/a/tmp' }],
    });
  });

  it('G2 given a path editable under /srv/a, when widened to /srv or moved to /etc, then it is refused naming the argument and why', () => {
    for (const text of ['/srv', '/etc/passwd', '/srv/ab', '/']) {
      const decision = decideEdit(given([PATH]), [{ name: 'path', text }]);
      expect(decision).toMatchObject({ kind: 'refused', code: 'outside_prefix', argument: 'path' });
      if (decision.kind === 'refused') expect(decision.text).toContain('must be under /srv/a');
    }
  });

  it('G2 given a path editable under /srv/a, when it holds .. (even one that stays inside), then it is refused; . and // are normalised away', () => {
    for (const text of ['/srv/a/../b', '/srv/a/tmp/../x', 'srv/a/x', '', '/srv/a/%2e%2e/b']) {
      expect(decideEdit(given([PATH]), [{ name: 'path', text }])).toMatchObject({
        kind: 'refused',
        code: 'unsafe_path',
      });
    }
    expect(decideEdit(given([PATH]), [{ name: 'path', text: '/srv/a/./tmp//x' }])).toMatchObject({
      kind: 'accepted',
      arguments: { path: '/srv/a/tmp/x' },
      changes: [{ name: 'path', from: '/srv/a', to: '/srv/a/tmp/x' }],
    });
  });

  it('G2 given a policy bound wider than what was asked, when the edit stays inside the policy but goes beyond the request, then it widens and is refused', () => {
    const wide: EditableArgument[] = [
      { name: 'path', value: '/srv/a/x', constraint: { prefix: '/srv' } },
      { name: 'limit', value: 10, constraint: { max: 100 } },
    ];
    const args = { path: '/srv/a/x', limit: 10 };
    expect(decideEdit(given(wide, args), [{ name: 'path', text: '/srv/a' }])).toMatchObject({
      kind: 'refused',
      code: 'widens',
      argument: 'path',
    });
    expect(decideEdit(given(wide, args), [{ name: 'limit', text: '50' }])).toMatchObject({
      kind: 'refused',
      code: 'widens',
      argument: 'limit',
    });
    expect(decideEdit(given(wide, args), [{ name: 'limit', text: '5' }])).toMatchObject({
      kind: 'accepted',
    });
  });

  it('G2 given enum, max, subsetOf and pattern constraints, when each edit stays inside, then all run; one step outside refuses the whole edit', () => {
    const editable: EditableArgument[] = [
      { name: 'mode', value: 'append', constraint: { enum: ['read', 'append'] } },
      { name: 'limit', value: 10, constraint: { max: 10 } },
      { name: 'tags', value: ['a', 'b'], constraint: { subsetOf: ['a', 'b', 'c'] } },
      { name: 'name', value: 'n1', constraint: { pattern: 'n[0-9]+' } },
    ];
    const args = { mode: 'append', limit: 10, tags: ['a', 'b'], name: 'n1' };
    const inside = decideEdit(given(editable, args), [
      { name: 'mode', text: 'read' },
      { name: 'limit', text: ' 3 ' },
      { name: 'tags', text: '\n b ' },
      { name: 'name', text: 'n22' },
    ]);
    expect(inside).toMatchObject({
      kind: 'accepted',
      arguments: { mode: 'read', limit: 3, tags: ['b'], name: 'n22' },
      changes: [
        { name: 'mode', from: 'append', to: 'read' },
        { name: 'limit', from: '10', to: '3' },
        { name: 'tags', from: '[a, b]', to: '[b]' },
        { name: 'name', from: 'n1', to: 'n22' },
      ],
    });
    const outside: [string, string, string][] = [
      ['mode', 'write', 'not_in_enum'],
      ['limit', '11', 'above_max'],
      ['limit', 'ten', 'wrong_type'],
      ['tags', 'a\nd', 'not_subset'],
      ['tags', 'a\nc', 'widens'],
      ['name', 'n1; rm', 'pattern_mismatch'],
    ];
    for (const [name, text, code] of outside) {
      expect(decideEdit(given(editable, args), [{ name, text }])).toMatchObject({
        kind: 'refused',
        code,
        argument: name,
      });
    }
  });

  it('G2 given an argument the policy does not name, when it is edited, then it is refused as not editable', () => {
    expect(decideEdit(given([PATH]), [{ name: 'content', text: 'y' }])).toMatchObject({
      kind: 'refused',
      code: 'not_editable',
      argument: 'content',
    });
    expect(decideEdit(given([PATH]), [{ name: '__proto__', text: '{}' }])).toMatchObject({
      kind: 'refused',
      code: 'not_editable',
    });
  });

  it('G2 given a prompt that offers no edit, when an edit arrives, then it is refused as not offered', () => {
    expect(
      decideEdit({ editable: undefined, arguments: {} }, [{ name: 'path', text: '/srv/a' }]),
    ).toMatchObject({ kind: 'refused', code: 'not_offered' });
  });

  it('G2 given the form submitted unchanged, then it approves the arguments as asked, with no change shown', () => {
    const decision = decideEdit(given([PATH]), [{ name: 'path', text: '/srv/a' }]);
    expect(decision).toMatchObject({
      kind: 'accepted',
      changes: [],
      argumentsHash: argumentsHashOf({ path: '/srv/a', content: 'x' }),
    });
  });

  it('G2 editableArguments offers only the policy arguments the call has, with their values', () => {
    const policy = [
      { name: 'path', constraint: { kind: 'prefix', directory: '/srv/a' } as const },
      { name: 'missing', constraint: { kind: 'max', max: 1 } as const },
    ];
    expect(editableArguments(policy, { path: '/srv/a/x', content: 'c' })).toEqual([
      { name: 'path', value: '/srv/a/x', constraint: { prefix: '/srv/a' } },
    ]);
    expect(editableArguments(policy, { content: 'c' })).toBeUndefined();
    expect(editableArguments(undefined, { path: '/x' })).toBeUndefined();
  });
});
