import type { ApprovalRecord } from '../approvals/approval.view';
import { permissionRequestOutput, preToolUseOutput, verdictOf } from './hook-answer';

const edited = {
  status: 'approved',
  route: { platform: 'slack', workspace: 'T1', channel: 'C1', thread: '' },
  decision: {
    option: 'approve_once',
    by: { platform: 'slack', id: 'U1' },
    via: 'click',
    reason: null,
    finalArguments: { file_path: '/srv/a/tmp/x' },
    finalArgumentsHash: `sha256:${'0'.repeat(64)}`,
  },
} as unknown as ApprovalRecord;

describe('G2 runtime hooks and an edited approval', () => {
  it('G2 Claude Code is told updatedInput, on PermissionRequest and PreToolUse alike', () => {
    const verdict = verdictOf(edited);
    expect(permissionRequestOutput(verdict)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'allow', updatedInput: { file_path: '/srv/a/tmp/x' } },
      },
    });
    expect(preToolUseOutput(verdict)).toMatchObject({
      hookSpecificOutput: {
        permissionDecision: 'allow',
        updatedInput: { file_path: '/srv/a/tmp/x' },
      },
    });
  });

  it('G2 an approval without an edit never carries updatedInput; a runtime that cannot apply one is denied', () => {
    const plain = { ...edited, decision: { ...edited.decision!, finalArguments: undefined } };
    delete (plain.decision as Record<string, unknown>).finalArguments;
    expect(JSON.stringify(permissionRequestOutput(verdictOf(plain)))).not.toContain('updatedInput');
    expect(permissionRequestOutput(verdictOf(edited), { updatedInput: false })).toMatchObject({
      hookSpecificOutput: { decision: { behavior: 'deny' } },
    });
  });
});
