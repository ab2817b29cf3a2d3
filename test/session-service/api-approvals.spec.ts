import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  type ApprovalCancel,
  type ApprovalRequest,
  type Conversation,
  type Person,
  type ToolInteractionResponse,
} from '@tollgate/protocol';
import { freshConversation, undeliverable } from '../support/commands';
import { DecisionLog } from '../support/decisions';
import { is } from '../support/nats';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { apiApprovalRequest, newClientId } from '../support/api-approval-requests';

const ADA: Person = { id: 'U_ADA', displayName: 'Ada' };
const BOB: Person = { id: 'U_BOB', displayName: 'Bob' };
const MALLORY: Person = { id: 'U_MALLORY' };

const approval = (
  route: Conversation,
  clientId: string,
  overrides: Partial<ApprovalRequest> = {},
): ApprovalRequest => apiApprovalRequest(route, clientId, [ADA, BOB], overrides);

function cancel(request: ApprovalRequest): ApprovalCancel {
  return {
    type: 'ApprovalCancel',
    v: 1,
    id: `api-cancel:${request.approvalId}`,
    sessionId: request.sessionId,
    conversation: request.conversation,
    occurredAt: new Date().toISOString(),
    approvalId: request.approvalId,
    clientId: request.clientId,
  };
}

/** A click (or a typed answer) as a binding sends it: the session id echoed from the prompt. */
function click(
  request: ApprovalRequest,
  optionKey: string,
  sender: Person,
  extra: Partial<ToolInteractionResponse> = {},
): ToolInteractionResponse {
  return {
    type: 'ToolInteractionResponse',
    v: 1,
    id: `click-${randomBytes(8).toString('hex')}`,
    sessionId: request.sessionId,
    conversation: request.conversation,
    occurredAt: new Date().toISOString(),
    callId: request.approvalId,
    optionKey,
    sender,
    ...extra,
  };
}

/**
 * (process) API approvals on real NATS and PostgreSQL: approval-api's commands published on
 * `<prefix>.cmd.api.…` to the built session service, everything checked on the wire — the
 * bindings' outputs and the decision stream approval-api reads.
 */
describe('A2 — API approvals in the session service (process)', () => {
  let service: SessionServiceFixture;
  let decisions: DecisionLog;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('apiappr', { TOLLGATE_TIMER_POLL_MS: '200' });
    decisions = await DecisionLog.open(service.nc, service.prefix);
  });

  afterAll(async () => {
    await decisions?.close();
    await service.dispose();
  });

  async function decidedEvents(request: ApprovalRequest) {
    const journal = await service.journal(request.sessionId);
    return journal.filter(
      (e) => e.type === 'ApiApprovalDecided' && e.data.approvalId === request.approvalId,
    );
  }

  it('A2 a request is prompted to its route with its approvers; a non-approver is refused; an approver’s click decides once', async () => {
    const request = approval(freshConversation(), newClientId());
    await service.send(request, { msgId: request.id });
    const [prompt] = await service.outputs.waitForOutputs(
      'the prompt',
      is.request(request.approvalId),
      {
        sessionId: request.sessionId,
      },
    );
    expect(prompt).toMatchObject({
      conversation: request.conversation,
      toolName: 'Bash',
      requester: ADA,
      approvers: [ADA, BOB],
    });
    // A4: what will run, verbatim, with the agent's words labelled and the hash last.
    expect(prompt.displayText).toContain('• command: rm -rf build');
    expect(prompt.displayText).toContain('Agent says: Clean the build folder');
    expect(prompt.displayText.split('\n').at(-1)).toBe(
      `Arguments hash: ${request.argumentsHash.slice(0, 19)}`,
    );

    await service.send(click(request, 'approve_once', MALLORY));
    await service.outputs.waitForOutputs(
      'the refusal',
      is.rejected('wrong_requester', request.approvalId),
      {
        sessionId: request.sessionId,
      },
    );
    expect(await decidedEvents(request)).toEqual([]);

    await service.send(click(request, 'approve_once', BOB));
    const decided = await decisions.waitFor(request.approvalId);
    expect(decided).toMatchObject({
      sessionId: request.sessionId,
      clientId: request.clientId,
      status: 'approved',
      decision: {
        option: 'approve_once',
        by: { platform: 'slack', ...BOB },
        via: 'click',
        reason: null,
      },
    });
    await service.outputs.waitForOutputs('resolved', is.resolved(request.approvalId), {
      sessionId: request.sessionId,
    });

    await service.send(click(request, 'deny', ADA));
    await service.outputs.waitForOutputs(
      'the late click refused',
      is.rejected('prompt_expired', request.approvalId),
      {
        sessionId: request.sessionId,
      },
    );
    expect(await decidedEvents(request)).toHaveLength(1);
    expect(decisions.of(request.approvalId)).toHaveLength(1);
  });

  it('A2 a typed answer decides via text, and a repeated request is one approval', async () => {
    const request = approval(freshConversation(), newClientId());
    await service.send(request, { msgId: request.id });
    await service.send(request, { msgId: null });
    await service.outputs.waitForOutputs('the prompt', is.request(request.approvalId), {
      sessionId: request.sessionId,
    });
    await service.send(click(request, 'deny', ADA, { via: 'text' }));
    expect(await decisions.waitFor(request.approvalId)).toMatchObject({
      status: 'denied',
      decision: { option: 'deny', via: 'text', by: { id: ADA.id } },
    });
    const journal = await service.journal(request.sessionId);
    expect(journal.filter((e) => e.type === 'ApiApprovalRequested')).toHaveLength(1);
  });

  it('A2 a cancel withdraws the prompt and decides cancelled; a second cancel changes nothing', async () => {
    const request = approval(freshConversation(), newClientId());
    await service.send(request);
    await service.outputs.waitForOutputs('the prompt', is.request(request.approvalId), {
      sessionId: request.sessionId,
    });
    await service.send(cancel(request));
    const [withdrawn] = await service.outputs.waitForOutputs(
      'the withdrawal',
      is.update('Abandoned', request.approvalId),
      { sessionId: request.sessionId },
    );
    expect(withdrawn.reason).toBe('Withdrawn by the agent');
    expect(await decisions.waitFor(request.approvalId)).toMatchObject({
      status: 'cancelled',
      decision: null,
    });
    await service.send(
      { ...cancel(request), id: `api-cancel:${request.approvalId}` },
      { msgId: null },
    );
    await service.send(click(request, 'approve_once', ADA));
    await service.outputs.waitForOutputs(
      'a click after',
      is.rejected('prompt_expired', request.approvalId),
      {
        sessionId: request.sessionId,
      },
    );
    expect(await decidedEvents(request)).toHaveLength(1);
  });

  it.each([
    ['deny', 'denied'],
    ['expire', 'expired'],
  ] as const)(
    'A2 a deadline with onDeadline %s ends the approval %s',
    async (onDeadline, status) => {
      const request = approval(freshConversation(), newClientId(), { deadline: '1s', onDeadline });
      await service.send(request);
      const decided = await decisions.waitFor(request.approvalId);
      expect(decided).toMatchObject({
        status,
        decision: {
          option: 'deny',
          by: { platform: 'slack', id: 'tollgate' },
          via: 'deadline',
          reason: 'deadline passed',
        },
      });
      await service.outputs.waitForOutputs('the expiry', is.update('Expired', request.approvalId), {
        sessionId: request.sessionId,
      });
    },
  );

  it('A2 a prompt no binding could show expires the approval', async () => {
    const request = approval(freshConversation(), newClientId());
    await service.send(request);
    const [prompt] = await service.outputs.waitForOutputs(
      'the prompt',
      is.request(request.approvalId),
      {
        sessionId: request.sessionId,
      },
    );
    await service.send({
      ...undeliverable(request.conversation, request.approvalId, prompt.id),
      sessionId: request.sessionId,
    });
    expect(await decisions.waitFor(request.approvalId)).toMatchObject({
      status: 'expired',
      decision: null,
    });
  });

  it('A2 "Always allow" on an API prompt approves that client’s next request via grant with no prompt, never another client’s', async () => {
    const route = freshConversation();
    const clientId = newClientId();
    const first = approval(route, clientId, { tool: 'Deploy' });
    await service.send(first);
    await service.outputs.waitForOutputs('the prompt', is.request(first.approvalId), {
      sessionId: first.sessionId,
    });
    await service.send(click(first, 'approve_always', BOB));
    await decisions.waitFor(first.approvalId);

    const again = approval(route, clientId, {
      tool: 'Deploy',
      caller: { name: 'claude-code', session: 'other' },
    });
    await service.send(again);
    expect(await decisions.waitFor(again.approvalId)).toMatchObject({
      status: 'approved',
      decision: { option: 'approve_always', by: { id: BOB.id }, via: 'grant' },
    });
    expect(service.outputs.outputs(again.sessionId).filter(is.request(again.approvalId))).toEqual(
      [],
    );

    const otherClient = approval(route, newClientId(), { tool: 'Deploy' });
    await service.send(otherClient);
    await service.outputs.waitForOutputs(
      'another client is asked',
      is.request(otherClient.approvalId),
      {
        sessionId: otherClient.sessionId,
      },
    );
    expect(decisions.of(otherClient.approvalId)).toEqual([]);
  });

  it('A2 after a SIGKILL with approvals pending, their prompts say "still valid" and a click decides', async () => {
    const route = freshConversation();
    const clientId = newClientId();
    const one = approval(route, clientId);
    const two = approval(route, clientId, { arguments: { command: 'ls' } });
    await service.send(one);
    await service.send(two);
    const prompts = await service.outputs.waitForOutputs('two prompts', is.request(), {
      sessionId: one.sessionId,
      count: 2,
    });

    await service.restart('SIGKILL');
    const refreshes = await service.outputs.waitForOutputs(
      'the refreshes',
      is.update('RefreshedAfterRestart'),
      { sessionId: one.sessionId, count: 2 },
    );
    for (const refresh of refreshes) {
      expect(refresh.reason).toContain('still valid');
      expect(refresh.request).toEqual(prompts.find((p) => p.callId === refresh.callId));
    }

    await service.send(click(two, 'approve_once', ADA));
    expect(await decisions.waitFor(two.approvalId)).toMatchObject({
      status: 'approved',
      decision: { via: 'click', by: { id: ADA.id } },
    });
    expect(decisions.of(one.approvalId)).toEqual([]);
  });

  it('A2 `tollgate sessions show` lists an agent session’s pending approvals, in step with the projection', async () => {
    const route = freshConversation();
    const clientId = newClientId();
    const one = approval(route, clientId);
    const two = approval(route, clientId, { arguments: { command: 'ls' } });
    await service.send(one);
    await service.send(two);
    await service.outputs.waitForOutputs('two prompts', is.request(), {
      sessionId: one.sessionId,
      count: 2,
    });
    const cli = join(__dirname, '..', '..', 'dist', 'apps', 'tollgate-cli', 'main.js');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [cli, 'sessions', 'show', one.sessionId],
      {
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: service.database.url,
          DATABASE_SCHEMA: service.database.schema,
        },
      },
    );
    const lines = stdout.trim().split('\n');
    expect(lines).toContain(`agent session of client: client=${clientId}`);
    expect(
      lines.filter((l) => /^ {2}approval=apr_\w+ tool=Bash requested_seq=\d+ pending age=/.test(l)),
    ).toHaveLength(2);
    expect(lines).toContain(`pending calls: ${one.approvalId}, ${two.approvalId}`);
    expect(lines.some((l) => l.startsWith('!'))).toBe(false);
  });
});
