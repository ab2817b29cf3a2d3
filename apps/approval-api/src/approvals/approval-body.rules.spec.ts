import type { ApprovalClient } from '@tollgate/approval-clients';
import { checkApprovalBody } from './approval-body.rules';
import { approvalRequestOf } from './approval-commands';

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

  it('G1 API group: takes a platform group the client may ask beside persons, and carries it to the command', () => {
    const withGroup = { ...client, approvers: ['U1', 'U2', 'S03'] };
    const verdict = checkApprovalBody(
      { ...minimal, approvers: [{ group: 'S03', name: 'ops' }], quorum: 2 },
      withGroup,
    );
    expect(verdict).toMatchObject({
      ok: true,
      ask: { approvers: [], approverGroups: [{ id: 'S03', name: 'ops' }], quorum: 2 },
    });
    const mixed = checkApprovalBody({ ...minimal, approvers: ['U1', { group: 'S03' }] }, withGroup);
    expect(mixed).toMatchObject({
      ok: true,
      ask: { approvers: ['U1'], approverGroups: [{ id: 'S03' }] },
    });
    if (!verdict.ok) throw new Error('refused');
    const command = approvalRequestOf(
      'apr_00000000000000000000000000',
      withGroup,
      verdict.ask,
      new Date(0),
    );
    expect(command.approverGroups).toEqual([{ id: 'S03', name: 'ops' }]);
    expect(command.approvers).toEqual([]);
  });

  it.each([
    ['a group with another field', [{ group: 'S03', role: 'x' }], 'invalid_approver_group'],
    ['a group with no id', [{ name: 'ops' }], 'invalid_approver_group'],
    ['a group id that is not text', [{ group: 3 }], 'invalid_approver_group'],
    ['an empty group name', [{ group: 'S03', name: '' }], 'invalid_approver_group'],
    [
      'an 81-character group name',
      [{ group: 'S03', name: 'n'.repeat(81) }],
      'invalid_approver_group',
    ],
    ['a group twice', [{ group: 'S03' }, { group: 'S03', name: 'ops' }], 'invalid_approver_group'],
    [
      'six groups',
      Array.from({ length: 6 }, (_, i) => ({ group: `S0${i}` })),
      'invalid_approver_group',
    ],
    ['a list inside the list', [['S03']], 'invalid_approvers'],
  ])(
    'G1 API group: refuses approvers with %s, a 400 naming the field',
    (_case, approvers, code) => {
      const many = { ...client, approvers: ['S03', 'S00', 'S01', 'S02', 'S04', 'S05'] };
      expect(checkApprovalBody({ ...minimal, approvers }, many)).toMatchObject({
        ok: false,
        status: 400,
        code,
      });
    },
  );

  it('G1 API group: a group the client was not created with is 403 route_not_allowed', () => {
    expect(checkApprovalBody({ ...minimal, approvers: [{ group: 'S03' }] }, client)).toMatchObject({
      ok: false,
      status: 403,
      code: 'route_not_allowed',
    });
  });

  it('G3 API always: takes a scope, ttl and uses to offer with "Always allow", and carries them to the command', () => {
    const always = { scope: { command: { pattern: 'ls .*' } }, ttl: '8h', uses: 2 };
    const verdict = checkApprovalBody({ ...minimal, always }, client);
    expect(verdict).toMatchObject({ ok: true, ask: { always } });
    if (!verdict.ok) throw new Error('refused');
    const command = approvalRequestOf(
      'apr_00000000000000000000000000',
      client,
      verdict.ask,
      new Date(0),
    );
    expect(command.always).toEqual(always);
  });

  it.each([
    ['an unknown field', { uses: 2, forever: true }],
    ['no scope, ttl or uses', { label: 'Always allow' }],
    ['a scope that is no constraint', { scope: { command: { regex: 'ls' } } }],
    ['a pattern that could backtrack for long', { scope: { command: { pattern: '(a+)+' } } }],
    ['a ttl that is no duration', { ttl: 'soon' }],
    ['uses over 1,000', { uses: 1001 }],
    ['uses that are not whole', { uses: 1.5 }],
    ['a label over 75 characters', { uses: 1, label: 'l'.repeat(76) }],
    ['no object', 'forever'],
  ])('G3 API always: refuses %s with 400 invalid_always', (_case, always) => {
    expect(checkApprovalBody({ ...minimal, always }, client)).toMatchObject({
      ok: false,
      status: 400,
      code: 'invalid_always',
    });
  });

  it('G3 API always: refuses an offer no "Always allow" could carry (not offered, or a quorum)', () => {
    for (const body of [
      { ...minimal, always: { uses: 2 }, options: ['approve_once', 'deny'] },
      { ...minimal, always: { uses: 2 }, quorum: 2 },
    ]) {
      expect(checkApprovalBody(body, client)).toMatchObject({ code: 'invalid_always' });
    }
  });
});
