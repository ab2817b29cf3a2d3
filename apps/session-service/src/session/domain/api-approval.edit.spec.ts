import { approvalId } from '../../../../../libs/protocol/src/testing/approval-fixtures';
import { argumentsHashOf, standardOptions } from '@tollgate/protocol';
import { defaultToolPolicy, type ToolPolicyEntry } from '../../tools/tool-policy';
import { AgentSessionGiven } from './testing/agent-session-given';
import { defaultDeps } from './testing/session-given';

/** A policy that names the API's tool `Bash` and lets its `path` be narrowed under /srv/a. */
function givenEditableBash(): AgentSessionGiven {
  const base = defaultToolPolicy();
  const bash: ToolPolicyEntry = {
    mode: 'approval',
    options: standardOptions(),
    editable: [{ name: 'path', constraint: { kind: 'prefix', directory: '/srv/a' } }],
  };
  return new AgentSessionGiven({
    ...defaultDeps(),
    policy: { entryFor: (tool) => (tool === 'Bash' ? bash : base.entryFor(tool)) },
  });
}

const ARGS = { command: 'ls', path: '/srv/a' };

describe('G2 — an API approval approved with edited arguments', () => {
  it('G2 given a policy naming the tool, the API prompt offers its editable argument; a narrowing decides approved with finalArguments and their hash', async () => {
    const session = givenEditableBash();
    const requested = await session.request({ arguments: ARGS });
    expect(requested.outputs[0]).toMatchObject({
      type: 'ToolInteractionRequest',
      editable: [{ name: 'path', value: '/srv/a', constraint: { prefix: '/srv/a' } }],
    });

    const decided = await session.respond(approvalId, 'approve_once', {
      edits: [{ name: 'path', text: '/srv/a/tmp' }],
    });

    const final = { command: 'ls', path: '/srv/a/tmp' };
    expect(decided.decisions).toMatchObject([
      {
        status: 'approved',
        decision: {
          option: 'approve_once',
          finalArguments: final,
          finalArgumentsHash: argumentsHashOf(final),
        },
      },
    ]);
    expect(decided.outputs).toMatchObject([
      {
        type: 'ToolInteractionResolved',
        edit: { changes: [{ name: 'path', from: '/srv/a', to: '/srv/a/tmp' }] },
      },
    ]);
  });

  it('G2 a widening of an API prompt is refused privately and nothing is decided', async () => {
    const session = givenEditableBash();
    await session.request({ arguments: ARGS });

    const refused = await session.respond(approvalId, 'approve_once', {
      edits: [{ name: 'path', text: '/srv' }],
    });

    expect(refused.decisions).toEqual([]);
    expect(refused.outputs).toMatchObject([
      { type: 'ToolInteractionRejected', reason: 'edit_refused' },
    ]);
    expect(session.state.apiApprovals[approvalId]).toBeDefined();
  });

  it('G2 without a policy naming the tool, an API prompt offers no edit and refuses one', async () => {
    const session = new AgentSessionGiven();
    const requested = await session.request({ arguments: ARGS });
    expect(requested.outputs[0]).not.toHaveProperty('editable');

    const refused = await session.respond(approvalId, 'approve_once', {
      edits: [{ name: 'path', text: '/srv/a/tmp' }],
    });
    expect(refused.decisions).toEqual([]);
  });
});
