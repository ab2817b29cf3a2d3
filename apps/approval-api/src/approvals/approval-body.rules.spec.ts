import type { ApprovalClient } from '@tollgate/approval-clients';
import { checkApprovalBody } from './approval-body.rules';

const client: ApprovalClient = {
  id: 'cli_000000000000000000000001',
  name: 'deploy bot',
  platform: 'slack',
  workspaceId: 'T1',
  conversations: [
    { channelId: 'C1', threadId: '' },
    { channelId: 'C2', threadId: '171.1' },
  ],
  approvers: ['U1', 'U2'],
  onBehalfOf: 'U9',
  webhookUrl: null,
  webhookSecret: null,
  createdAt: new Date(0),
  revokedAt: null,
};

const minimal = { tool: 'Bash', arguments: { command: 'ls' } };

describe('checkApprovalBody', () => {
  it('fills what the body leaves out from the client: first route, all approvers, principal, every option', () => {
    expect(checkApprovalBody(minimal, client)).toEqual({
      ok: true,
      ask: {
        tool: 'Bash',
        arguments: { command: 'ls' },
        agent: { name: 'deploy bot', session: 'default' },
        route: { platform: 'slack', workspace: 'T1', channel: 'C1', thread: '' },
        approvers: ['U1', 'U2'],
        onBehalfOf: 'U9',
        options: ['approve_once', 'approve_session', 'approve_always', 'deny'],
      },
    });
  });

  it('allows any thread of a channel allowed without one, and only the named thread otherwise', () => {
    const inThread = checkApprovalBody(
      { ...minimal, route: { channel: 'C1', thread: '99.9' } },
      client,
    );
    expect(inThread.ok).toBe(true);
    const named = checkApprovalBody(
      { ...minimal, route: { channel: 'C2', thread: '171.1' } },
      client,
    );
    expect(named.ok).toBe(true);
    for (const route of [
      { channel: 'C2' },
      { channel: 'C2', thread: '171.2' },
      { channel: 'C3' },
    ]) {
      expect(checkApprovalBody({ ...minimal, route }, client)).toMatchObject({
        ok: false,
        status: 403,
        code: 'route_not_allowed',
      });
    }
  });

  it('refuses approvers outside the client with 403, malformed ones with 400', () => {
    expect(checkApprovalBody({ ...minimal, approvers: ['U3'] }, client)).toMatchObject({
      status: 403,
      code: 'route_not_allowed',
    });
    expect(checkApprovalBody({ ...minimal, approvers: ['U1', 'U1'] }, client)).toMatchObject({
      status: 400,
      code: 'invalid_approvers',
    });
  });

  it('names the field of each malformed request', () => {
    const cases: [unknown, string][] = [
      [[], 'invalid_body'],
      [{ ...minimal, extra: 1 }, 'unknown_field'],
      [{ ...minimal, tool: '' }, 'invalid_tool'],
      [{ ...minimal, tool: 'a\u0000b' }, 'invalid_tool'],
      [{ ...minimal, arguments: 'ls' }, 'invalid_arguments'],
      [{ ...minimal, summary: 'x'.repeat(2_001) }, 'invalid_summary'],
      [{ ...minimal, agent: { name: 'a', session: '', x: 1 } }, 'invalid_agent'],
      [{ ...minimal, route: { platform: 'irc' } }, 'invalid_route'],
      [{ ...minimal, options: [] }, 'invalid_options'],
      [{ ...minimal, deadline: '0m' }, 'invalid_deadline'],
      [{ ...minimal, deadline: '30m', onDeadline: 'later' }, 'invalid_on_deadline'],
    ];
    for (const [body, code] of cases) {
      expect({ code, verdict: checkApprovalBody(body, client) }).toMatchObject({
        code,
        verdict: { ok: false, status: 400, code },
      });
    }
  });
});

describe('G1 checkApprovalBody: quorum and separateApprover', () => {
  it('G1 takes a quorum the approvers can reach, and separateApprover', () => {
    const verdict = checkApprovalBody({ ...minimal, quorum: 2, separateApprover: false }, client);
    expect(verdict).toMatchObject({ ok: true, ask: { quorum: 2, separateApprover: false } });
  });

  it('G1 refuses a quorum more than the approvers who may approve, naming why', () => {
    expect(checkApprovalBody({ ...minimal, quorum: 3 }, client)).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_quorum',
      message: 'quorum needs 3 distinct approvers but only 2 may approve',
    });
    // The person it is on behalf of does not count when kept separate.
    expect(
      checkApprovalBody(
        { ...minimal, quorum: 2, separateApprover: true, onBehalfOf: 'U1' },
        client,
      ),
    ).toMatchObject({ ok: false, code: 'invalid_quorum' });
    expect(checkApprovalBody({ ...minimal, quorum: 0 }, client)).toMatchObject({
      ok: false,
      code: 'invalid_quorum',
    });
    expect(checkApprovalBody({ ...minimal, separateApprover: 'yes' }, client)).toMatchObject({
      ok: false,
      code: 'invalid_separate_approver',
    });
  });
});
