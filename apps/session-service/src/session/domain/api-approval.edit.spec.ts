import { approvalId } from '../../../../../libs/protocol/src/testing/approval-fixtures';
import { argumentsHashOf, standardOptions } from '@tollgate/protocol';
import { type ApiToolPolicyEntry, defaultToolPolicy } from '../../tools/tool-policy';
import { AgentSessionGiven } from './testing/agent-session-given';
import { defaultDeps } from './testing/session-given';

/** A policy whose apiTools name the agent's tool `Bash` and let its `path` be narrowed. */
function givenEditableBash(): AgentSessionGiven {
  const base = defaultToolPolicy();
  const bash: ApiToolPolicyEntry = {
    editable: [{ name: 'path', constraint: { kind: 'prefix', directory: '/srv/a' } }],
  };
  return new AgentSessionGiven({
    ...defaultDeps(),
    policy: { ...base, apiEntryFor: (tool) => (tool === 'Bash' ? bash : undefined) },
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

  it("G2 given only a tools: entry of the same name, an API prompt offers no edit: the session's own tools are not the agent's", async () => {
    const base = defaultToolPolicy();
    const session = new AgentSessionGiven({
      ...defaultDeps(),
      policy: {
        ...base,
        entryFor: (tool) =>
          tool === 'Bash'
            ? {
                mode: 'approval',
                options: standardOptions(),
                editable: [{ name: 'path', constraint: { kind: 'prefix', directory: '/srv/a' } }],
              }
            : base.entryFor(tool),
      },
    });
    const requested = await session.request({ arguments: ARGS });
    expect(requested.outputs[0]).toMatchObject({ type: 'ToolInteractionRequest' });
    expect(requested.outputs[0]).not.toHaveProperty('editable');
  });
});
