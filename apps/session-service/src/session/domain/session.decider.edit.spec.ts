import { argumentsHashOf, standardOptions } from '@tollgate/protocol';
import { defaultToolPolicy, type ToolPolicy, type ToolPolicyEntry } from '../../tools/tool-policy';
import {
  defaultDeps,
  eventsOf,
  eventTypes,
  executedCalls,
  outputKinds,
  outputsOf,
  REQUESTER,
  SessionGiven,
  SOMEONE_ELSE,
} from './testing/session-given';

/** write_note whose `text` an approver may narrow to a path under /srv/a (as a file tool's). */
function editablePolicy(): ToolPolicy {
  const base = defaultToolPolicy();
  const writeNote: ToolPolicyEntry = {
    mode: 'approval',
    options: standardOptions(),
    editable: [{ name: 'text', constraint: { kind: 'prefix', directory: '/srv/a' } }],
  };
  return {
    apiEntryFor: () => undefined,
    entryFor: (tool) => (tool === 'write_note' ? writeNote : base.entryFor(tool)),
  };
}

async function givenEditablePrompt(): Promise<SessionGiven> {
  const session = new SessionGiven({ ...defaultDeps(), policy: editablePolicy() });
  await session.message('!write_note {"text":"/srv/a"}');
  return session;
}

describe('G2 decideResponse: approve with edited arguments', () => {
  it('G2 given a policy with an editable argument, the prompt offers it with its current value and constraint', async () => {
    const session = new SessionGiven({ ...defaultDeps(), policy: editablePolicy() });

    const decision = await session.message('!write_note {"text":"/srv/a"}');

    expect(outputsOf(decision.outputs, 'ToolInteractionRequest')).toMatchObject([
      { editable: [{ name: 'text', value: '/srv/a', constraint: { prefix: '/srv/a' } }] },
    ]);
  });

  it('G2 given an editable prompt, when the requester narrows the path, then the tool runs with the new value and the prompt shows the change', async () => {
    const session = await givenEditablePrompt();

    const decision = await session.respond('call_2_1', 'approve_once', {
      edits: [{ name: 'text', text: '/srv/a/tmp' }],
    });

    const hash = argumentsHashOf({ text: '/srv/a/tmp' });
    expect(eventsOf(decision, 'ToolApprovalResolved')).toEqual([
      expect.objectContaining({
        optionKey: 'approve_once',
        approved: true,
        resolvedBy: REQUESTER,
        edit: {
          arguments: '{"text":"/srv/a/tmp"}',
          argumentsHash: hash,
          changes: [{ name: 'text', from: '/srv/a', to: '/srv/a/tmp' }],
        },
      }),
    ]);
    expect(outputsOf(decision.outputs, 'ToolInteractionResolved')).toMatchObject([
      {
        resolvedBy: REQUESTER,
        edit: {
          changes: [{ name: 'text', from: '/srv/a', to: '/srv/a/tmp' }],
          argumentsHash: hash,
        },
      },
    ]);
    expect(session.notes).toEqual(['/srv/a/tmp']);
    expect(executedCalls(session.journal)).toEqual(['call_2_1']);
  });

  it('G2 given an editable prompt, when the requester widens the path, then only they are told why, nothing runs and the prompt stays answerable', async () => {
    const session = await givenEditablePrompt();

    const refused = await session.respond('call_2_1', 'approve_once', {
      edits: [{ name: 'text', text: '/srv' }],
    });

    expect(eventTypes(refused)).toEqual(['ToolApprovalRefused']);
    expect(eventsOf(refused, 'ToolApprovalRefused')).toMatchObject([
      { reason: 'edit_refused', detail: { argument: 'text', code: 'outside_prefix' } },
    ]);
    expect(outputKinds(refused.outputs)).toEqual(['ToolInteractionRejected{edit_refused}']);
    const [notice] = outputsOf(refused.outputs, 'ToolInteractionRejected');
    expect(notice.sender).toEqual(REQUESTER);
    expect(notice.text).toContain('text must be under /srv/a');
    expect(executedCalls(session.journal)).toEqual([]);

    await session.respond('call_2_1', 'approve_once');
    expect(session.notes).toEqual(['/srv/a']);
  });

  it('G2 given an editable prompt, when someone else submits an edit, then it is refused as the wrong requester and nothing runs', async () => {
    const session = await givenEditablePrompt();

    const refused = await session.respond('call_2_1', 'approve_once', {
      sender: SOMEONE_ELSE,
      edits: [{ name: 'text', text: '/srv/a/tmp' }],
    });

    expect(outputKinds(refused.outputs)).toEqual(['ToolInteractionRejected{wrong_requester}']);
    expect(executedCalls(session.journal)).toEqual([]);
  });

  it('G2 given a prompt without editable arguments, when an edit arrives, then it is refused and nothing runs', async () => {
    const session = new SessionGiven();
    await session.message('!write_note {"text":"x"}');

    const refused = await session.respond('call_2_1', 'approve_once', {
      edits: [{ name: 'text', text: 'y' }],
    });

    expect(eventsOf(refused, 'ToolApprovalRefused')).toMatchObject([
      { reason: 'edit_refused', detail: { code: 'not_offered' } },
    ]);
    expect(session.notes).toEqual([]);
  });
});
