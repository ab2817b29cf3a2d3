import type { Conversation, Output } from '@tollgate/protocol';
import { approvalId, clientId } from '../../../../../libs/protocol/src/testing/approval-fixtures';
import { conversation } from '../../../../../libs/protocol/src/testing/message-fixtures';
import { WITHDRAWN } from './api-approval.decider';
import { pendingPrompts } from '@tollgate/session-read-model';
import { AgentSessionGiven, agentSessionId } from './testing/agent-session-given';
import { defaultDeps } from './testing/session-given';
import type { ToolGrants } from './tool-grants.port';

const ADA = { id: 'U0001', displayName: 'Ada' };
const BOB = { id: 'U0002', displayName: 'Bob' };
const MALLORY = { id: 'U0666' };
const SECOND = 'apr_0123456789abcdefghijklmnoq';

function kinds(outputs: readonly Output[]): string[] {
  return outputs.map((o) =>
    o.type === 'ToolInteractionUpdate'
      ? `Update{${o.status}}`
      : o.type === 'ToolInteractionRejected'
        ? `Rejected{${o.reason}}`
        : o.type === 'ToolInteractionResolved'
          ? `Resolved{${o.optionKey}}`
          : o.type === 'ToolInteractionRequest'
            ? `Request{${o.callId}}`
            : `Text{${o.role}}`,
  );
}

/** "Always allow" held per client, person and tool; records what it was asked. */
class ClientGrants implements ToolGrants {
  readonly asked: string[] = [];
  constructor(private readonly held: readonly string[]) {}
  async isAlwaysAllowed(_where: Conversation, personId: string, tool: string, client = '') {
    this.asked.push(`${client}/${personId}/${tool}`);
    return this.held.includes(`${client}/${personId}/${tool}`);
  }
}

describe('A2 — API approvals in their agent session', () => {
  it('A2 given no grant, when an approval is requested, then its prompt goes to the route with its approvers and nothing is decided', async () => {
    const session = new AgentSessionGiven();
    const asked = await session.request({ approvers: [ADA, BOB], deadline: '30m' });

    expect(asked.events.map((e) => e.type)).toEqual(['SessionStarted', 'ApiApprovalRequested']);
    expect(asked.decisions).toEqual([]);
    const [request] = asked.outputs;
    expect(request).toMatchObject({
      type: 'ToolInteractionRequest',
      sessionId: agentSessionId,
      conversation,
      callId: approvalId,
      toolName: 'Bash',
      requester: ADA,
      approvers: [ADA, BOB],
      principal: 'user',
    });
    expect(request?.type === 'ToolInteractionRequest' && request.displayText).toContain(
      '• command: rm -rf build',
    );
    expect(pendingPrompts(asked.state)).toEqual([
      { callId: approvalId, toolName: 'Bash', requestedSeq: 2 },
    ]);
    const requested = asked.events[1];
    expect(requested?.type === 'ApiApprovalRequested' && requested.timers?.deadline).toEqual({
      at: '2024-05-01T12:31:00.000Z',
      onDeadline: 'expire',
    });
  });

  it('A2 given a pending approval, when an approver clicks, then it is resolved and exactly one ApprovalDecided says approved via click', async () => {
    const session = new AgentSessionGiven();
    await session.request({ approvers: [ADA, BOB] });
    const clicked = await session.respond(approvalId, 'approve_once', { sender: BOB });

    expect(kinds(clicked.outputs)).toEqual(['Resolved{approve_once}']);
    expect(clicked.decisions).toEqual([
      expect.objectContaining({
        id: `decision:${approvalId}`,
        sessionId: agentSessionId,
        clientId,
        status: 'approved',
        decision: {
          option: 'approve_once',
          by: { platform: 'slack', ...BOB },
          via: 'click',
          reason: null,
        },
      }),
    ]);
    expect(pendingPrompts(clicked.state)).toEqual([]);

    const late = await session.respond(approvalId, 'deny', { sender: ADA });
    expect(kinds(late.outputs)).toEqual(['Rejected{prompt_expired}']);
    expect(late.decisions).toEqual([]);
  });

  it('A2 given a pending approval, when a typed deny arrives from an approver, then it is denied via text', async () => {
    const session = new AgentSessionGiven();
    await session.request();
    const typed = await session.respond(approvalId, 'deny', { via: 'text' });
    expect(typed.decisions[0]).toMatchObject({
      status: 'denied',
      decision: { option: 'deny', via: 'text', by: { id: ADA.id } },
    });
  });

  it('A2 given a pending approval, when someone who is not an approver clicks, then wrong_requester and nothing is decided', async () => {
    const session = new AgentSessionGiven();
    await session.request({ approvers: [ADA] });
    const refused = await session.respond(approvalId, 'approve_once', { sender: MALLORY });

    expect(kinds(refused.outputs)).toEqual(['Rejected{wrong_requester}']);
    expect(refused.decisions).toEqual([]);
    expect(pendingPrompts(refused.state)).toHaveLength(1);
    const approver = await session.respond(approvalId, 'approve_once', { sender: ADA });
    expect(kinds(approver.outputs)).toEqual(['Resolved{approve_once}']);
    expect(approver.decisions).toHaveLength(1);
  });

  it('A2 given options without approve_always, when an approver picks it, then option_unavailable', async () => {
    const session = new AgentSessionGiven();
    await session.request({ options: ['approve_once', 'deny'] });
    const refused = await session.respond(approvalId, 'approve_always');
    expect(kinds(refused.outputs)).toEqual(['Rejected{option_unavailable}']);
    expect(refused.decisions).toEqual([]);
  });

  it('A2 given a pending approval, when the agent cancels, then the prompt is withdrawn and the decision is cancelled; a second cancel does nothing', async () => {
    const session = new AgentSessionGiven();
    await session.request();
    const cancelled = await session.cancel();

    expect(cancelled.outputs).toEqual([
      expect.objectContaining({
        type: 'ToolInteractionUpdate',
        status: 'Abandoned',
        reason: WITHDRAWN,
      }),
    ]);
    expect(cancelled.decisions).toEqual([
      expect.objectContaining({ status: 'cancelled', decision: null }),
    ]);
    const again = await session.cancel();
    expect(again.events).toEqual([]);
    const click = await session.respond(approvalId, 'approve_once');
    expect(kinds(click.outputs)).toEqual(['Rejected{prompt_expired}', 'Update{Expired}']);
  });

  it('A2 given a decided approval, when the agent cancels, then nothing changes', async () => {
    const session = new AgentSessionGiven();
    await session.request();
    await session.respond(approvalId, 'approve_once');
    expect((await session.cancel()).events).toEqual([]);
  });

  it.each([
    ['expire', 'expired'],
    ['deny', 'denied'],
  ] as const)(
    'A2 given a deadline with onDeadline %s, when it passes, then the approval is %s via deadline',
    async (onDeadline, status) => {
      const session = new AgentSessionGiven();
      await session.request({ deadline: '5m', onDeadline });
      const due = await session.timer({ kind: 'deadline', callId: approvalId, onDeadline });

      expect(kinds(due.outputs)).toEqual(['Update{Expired}']);
      expect(due.decisions[0]).toMatchObject({
        status,
        decision: {
          option: 'deny',
          by: { platform: 'slack', id: 'tollgate' },
          via: 'deadline',
          reason: 'deadline passed',
        },
      });
      expect(
        (await session.timer({ kind: 'deadline', callId: approvalId, onDeadline })).events,
      ).toEqual([]);
    },
  );

  it('A2 given a prompt no binding could show, when it is reported undeliverable, then the approval expires with no decision', async () => {
    const session = new AgentSessionGiven();
    await session.request();
    const gone = await session.undeliverable(approvalId);
    expect(kinds(gone.outputs)).toEqual(['Update{Expired}']);
    expect(gone.decisions[0]).toMatchObject({ status: 'expired', decision: null });
  });

  it('A2 given two pending approvals, when the service restarts, then both prompts are refreshed "still valid" and answer after', async () => {
    const session = new AgentSessionGiven();
    await session.request();
    await session.request({ approvalId: SECOND, arguments: { command: 'ls' } });
    const recovered = await session.recover();

    expect(recovered.events.map((e) => e.type)).toEqual(['SessionRecovered']);
    expect(kinds(recovered.outputs)).toEqual([
      'Update{RefreshedAfterRestart}',
      'Update{RefreshedAfterRestart}',
    ]);
    expect(recovered.outputs.map((o) => 'request' in o && o.request?.callId)).toEqual([
      approvalId,
      SECOND,
    ]);
    const clicked = await session.respond(SECOND, 'deny');
    expect(clicked.decisions[0]).toMatchObject({ approvalId: SECOND, status: 'denied' });
    expect(pendingPrompts(clicked.state).map((p) => p.callId)).toEqual([approvalId]);
  });

  it('A2 given approve_session by an approver, when the same agent session asks for that tool again, then it is approved via grant with no prompt', async () => {
    const session = new AgentSessionGiven();
    await session.request({ approvers: [ADA, BOB] });
    await session.respond(approvalId, 'approve_session', { sender: BOB });

    const again = await session.request({ approvalId: SECOND, approvers: [ADA, BOB] });
    expect(again.outputs).toEqual([]);
    expect(again.decisions).toEqual([
      expect.objectContaining({
        approvalId: SECOND,
        status: 'approved',
        decision: {
          option: 'approve_session',
          by: { platform: 'slack', ...BOB },
          via: 'grant',
          reason: null,
        },
      }),
    ]);
    const otherTool = await session.request({
      approvalId: 'apr_0123456789abcdefghijklmnor',
      tool: 'Write',
    });
    expect(kinds(otherTool.outputs)).toEqual(['Request{apr_0123456789abcdefghijklmnor}']);
  });

  it('A2 given approve_session held by someone who is not an approver, then it does not apply', async () => {
    const session = new AgentSessionGiven();
    await session.request({ approvers: [BOB] });
    await session.respond(approvalId, 'approve_session', { sender: BOB });
    const again = await session.request({ approvalId: SECOND, approvers: [ADA] });
    expect(kinds(again.outputs)).toEqual([`Request{${SECOND}}`]);
  });

  it('A2 given an "Always allow" of this client, then the request is approved via grant; the grant is asked for this client only', async () => {
    const grants = new ClientGrants([`${clientId}/${BOB.id}/Bash`]);
    const session = new AgentSessionGiven({ ...defaultDeps(), grants });
    const asked = await session.request({ approvers: [ADA, BOB] });

    expect(asked.outputs).toEqual([]);
    expect(asked.decisions[0]).toMatchObject({
      status: 'approved',
      decision: { option: 'approve_always', by: { id: BOB.id }, via: 'grant' },
    });
    expect(grants.asked).toEqual([`${clientId}/${ADA.id}/Bash`, `${clientId}/${BOB.id}/Bash`]);
  });

  it('A2 given a request that does not offer approve_always, then no standing grant decides it', async () => {
    const grants = new ClientGrants([`${clientId}/${ADA.id}/Bash`]);
    const session = new AgentSessionGiven({ ...defaultDeps(), grants });
    const asked = await session.request({ options: ['approve_once', 'deny'] });
    expect(kinds(asked.outputs)).toEqual([`Request{${approvalId}}`]);
    expect(grants.asked).toEqual([]);
  });

  it('A2 given a repeated approval id, then nothing more is recorded', async () => {
    const session = new AgentSessionGiven();
    await session.request();
    expect((await session.request()).events).toEqual([]);
    await session.respond(approvalId, 'approve_once');
    expect((await session.request()).events).toEqual([]);
  });

  it('A2 given an unknown approval, when someone clicks it, then prompt_expired without journaling', async () => {
    const session = new AgentSessionGiven();
    const click = await session.respond(approvalId, 'approve_once');
    expect(click.events).toEqual([]);
    expect(kinds(click.unjournaled)).toEqual(['Rejected{prompt_expired}']);
  });
});
