import { STANDARD_OPTIONS } from '@tollgate/protocol';
import { defaultToolPolicy } from './tool-policy';

describe('default tool policy (docs/protocol.md §5)', () => {
  const policy = defaultToolPolicy();
  const allOptions = [
    STANDARD_OPTIONS.approve_once,
    STANDARD_OPTIONS.approve_session,
    STANDARD_OPTIONS.approve_always,
    STANDARD_OPTIONS.deny,
  ];

  it('runs echo without asking', () => {
    expect(policy.entryFor('echo')).toEqual({ mode: 'auto', options: allOptions });
  });

  it('asks before write_note, offering the standard options in canonical order', () => {
    expect(policy.entryFor('write_note')).toEqual({ mode: 'approval', options: allOptions });
  });

  it('knows no other tool', () => {
    expect(policy.entryFor('rm_rf')).toBeUndefined();
  });
});
