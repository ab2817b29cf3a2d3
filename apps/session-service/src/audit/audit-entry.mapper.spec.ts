import { argumentsHashOf } from '@tollgate/audit';
import type { JournaledEvent, SessionEvent } from '@tollgate/session-read-model';
import { auditEntriesOf } from './audit-entry.mapper';

const at = '2026-12-01T10:00:00.000Z';
const alice = { id: 'U_ALICE', displayName: 'Alice' };
const journaled = (event: SessionEvent, seq = 7): JournaledEvent => ({
  seq,
  occurredAt: at,
  event,
});
const SESSION = 'slack-T1-C1-1.1';

describe('G4 audit entries of journal events', () => {
  it('G4 a proposed call carries the hash of its canonical arguments', () => {
    const [entry] = auditEntriesOf(
      SESSION,
      journaled({
        type: 'ToolBatchStarted',
        batchId: 'b1',
        content: '',
        toolCalls: [{ callId: 'c1', toolName: 'write_note', arguments: '{"b":1,"a":"x"}' }],
      }),
    );
    expect(entry).toEqual({
      at,
      kind: 'call_proposed',
      sessionId: SESSION,
      callId: 'c1',
      who: null,
      via: null,
      argumentsHash: argumentsHashOf('{"a":"x","b":1}'),
      detail: { seq: 7, batchId: 'b1', tool: 'write_note' },
    });
    expect(entry?.argumentsHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('G4 a prompt shown is recorded with the platform and its own message ids', () => {
    const [entry] = auditEntriesOf(
      SESSION,
      journaled({
        type: 'PromptShown',
        commandId: 'shown:slack:C1:1733050000.000100',
        callId: 'call_2_1',
        platform: 'slack',
        messageRef: { channelId: 'C1', messageId: '1733050000.000100' },
        shown: 'posted',
      }),
    );
    expect(entry).toEqual({
      at,
      kind: 'prompt_shown',
      sessionId: SESSION,
      callId: 'call_2_1',
      who: null,
      via: null,
      argumentsHash: null,
      detail: {
        seq: 7,
        commandId: 'shown:slack:C1:1733050000.000100',
        platform: 'slack',
        channelId: 'C1',
        messageId: '1733050000.000100',
        shown: 'posted',
      },
    });
  });

  it('G4 an "Always allow" answer is an answer by its person and a grant given', () => {
    const entries = auditEntriesOf(
      SESSION,
      journaled({
        type: 'ToolApprovalResolved',
        commandId: 'click-1',
        callId: 'c1',
        optionKey: 'approve_always',
        label: 'Always allow',
        approved: true,
        resolvedBy: alice,
      }),
    );
    expect(entries.map((e) => [e.kind, e.who, e.callId])).toEqual([
      ['answer', alice, 'c1'],
      ['grant_given', alice, 'c1'],
    ]);
    expect(entries[1]?.detail).toMatchObject({ scope: 'always' });
  });

  it('G4 an answer, a quorum step and a refusal say whether they were clicked or typed', () => {
    const typed = auditEntriesOf(
      SESSION,
      journaled({
        type: 'ToolApprovalResolved',
        commandId: 'text-1',
        callId: 'c1',
        optionKey: 'approve_once',
        label: 'Approve once',
        approved: true,
        resolvedBy: alice,
        via: 'text',
      }),
    );
    const counted = auditEntriesOf(
      SESSION,
      journaled({
        type: 'ToolApprovalCounted',
        commandId: 'click-2',
        callId: 'c1',
        by: alice,
        at,
        via: 'click',
      }),
    );
    const refused = auditEntriesOf(
      SESSION,
      journaled({
        type: 'ToolApprovalRefused',
        commandId: 'click-3',
        callId: 'c1',
        optionKey: 'approve_once',
        sender: alice,
        reason: 'wrong_requester',
        via: 'click',
      }),
    );
    expect([...typed, ...counted, ...refused].map((e) => [e.kind, e.via])).toEqual([
      ['answer', 'text'],
      ['quorum_step', 'click'],
      ['refusal', 'click'],
    ]);
  });

  it('G3 a call a grant covered is a grant used by its owner, with the use it took', () => {
    const [used] = auditEntriesOf(
      SESSION,
      journaled({
        type: 'ToolCallGranted',
        callId: 'c2',
        toolName: 'write_note',
        grant: {
          kind: 'always',
          personId: alice.id,
          grantedAt: at,
          usesLeft: 1,
          scope: { text: { prefix: '/srv/notes' } },
        },
      }),
    );
    expect(used).toMatchObject({
      kind: 'grant_used',
      callId: 'c2',
      who: { id: alice.id },
      via: 'grant',
      detail: { tool: 'write_note', kind: 'always', usesLeft: 1, grantedAt: at },
    });
  });

  it('G4 a deadline is Tollgate’s, not a person’s, and a refusal keeps its reason', () => {
    const [deadline] = auditEntriesOf(
      SESSION,
      journaled({
        type: 'ToolApprovalResolved',
        commandId: 'deadline-1',
        callId: 'c1',
        optionKey: 'deadline_denied',
        label: 'denied',
        approved: false,
        resolvedBy: { id: 'tollgate' },
      }),
    );
    expect(deadline).toMatchObject({ kind: 'deadline', via: 'deadline', who: null });
    const [refusal] = auditEntriesOf(
      SESSION,
      journaled({
        type: 'ToolApprovalRefused',
        commandId: 'click-2',
        callId: 'c1',
        optionKey: 'approve_once',
        sender: alice,
        reason: 'wrong_requester',
      }),
    );
    expect(refusal).toMatchObject({
      kind: 'refusal',
      who: alice,
      detail: { reason: 'wrong_requester' },
    });
  });

  it('G2 an edited approval is an answer and an edit bound to the hash of what runs', () => {
    const hash = argumentsHashOf('{"path":"/srv/a/tmp"}');
    const entries = auditEntriesOf(
      SESSION,
      journaled({
        type: 'ToolApprovalResolved',
        commandId: 'view-1',
        callId: 'c1',
        optionKey: 'approve_once',
        label: 'Approve once',
        approved: true,
        resolvedBy: alice,
        edit: {
          arguments: '{"path":"/srv/a/tmp"}',
          argumentsHash: hash,
          changes: [{ name: 'path', from: '/srv/a', to: '/srv/a/tmp' }],
        },
      }),
    );
    expect(entries.map((e) => [e.kind, e.who, e.argumentsHash])).toEqual([
      ['answer', alice, null],
      ['edit', alice, hash],
    ]);
    expect(entries[1]?.detail).toEqual({ seq: 7, commandId: 'view-1', changed: ['path'] });
    const [refusal] = auditEntriesOf(
      SESSION,
      journaled({
        type: 'ToolApprovalRefused',
        commandId: 'view-2',
        callId: 'c1',
        optionKey: 'approve_once',
        sender: alice,
        reason: 'edit_refused',
        detail: { argument: 'path', code: 'outside_prefix' },
      }),
    );
    expect(refusal?.detail).toMatchObject({
      reason: 'edit_refused',
      edit: { argument: 'path', code: 'outside_prefix' },
    });
  });

  it('G4 an API decision through a grant is a grant used, with its approver and arguments', () => {
    const base = {
      commandId: 'cmd',
      approvalId: 'apr_1',
      clientId: 'ci',
      conversation: {
        platform: 'slack' as const,
        workspaceId: 'T1',
        channelId: 'C1',
        threadId: '',
      },
      tool: 'deploy',
    };
    const [used] = auditEntriesOf(
      'agent-x',
      journaled({
        type: 'ApiApprovalDecided',
        ...base,
        status: 'approved',
        decision: {
          option: 'approve_always',
          by: { platform: 'slack', id: 'U_ALICE' },
          via: 'grant',
          reason: null,
        },
      }),
    );
    expect(used).toMatchObject({
      kind: 'grant_used',
      via: 'grant',
      callId: 'apr_1',
      who: { id: 'U_ALICE', platform: 'slack' },
    });
    const [cancelled] = auditEntriesOf(
      'agent-x',
      journaled({ type: 'ApiApprovalDecided', ...base, status: 'cancelled', decision: null }),
    );
    expect(cancelled).toMatchObject({ kind: 'cancel', who: null });
  });

  it('G4 bookkeeping events leave no entry and chat text never reaches the trail', () => {
    expect(auditEntriesOf(SESSION, journaled({ type: 'TurnCompleted', reply: 'secret' }))).toEqual(
      [],
    );
    const [message] = auditEntriesOf(
      SESSION,
      journaled({
        type: 'UserMessageReceived',
        commandId: 'm1',
        sender: alice,
        text: 'the password is hunter2',
        principal: 'user',
      }),
    );
    expect(JSON.stringify(message)).not.toContain('hunter2');
  });
});
