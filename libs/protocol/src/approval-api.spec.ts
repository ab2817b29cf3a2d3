import { parseApprovalDecided } from './approval-decided.schema';
import { argumentsHashOf } from './arguments-hash';
import { parseCommand, parseCommandForSubject, parseOutput } from './message.parser';
import { commandSubject } from './message-subject';
import {
  deriveAgentSessionId,
  deriveSessionId,
  isAgentSessionId,
  isSessionId,
  platformOfSessionId,
} from './session-id';
import { InvalidSubjectTokenError, Subjects } from './subjects';
import {
  agentSessionId,
  anApprovalCancel,
  anApprovalDecided,
  anApprovalRequest,
  approvalId,
  clientId,
} from './testing/approval-fixtures';
import { aRequest, aResponse, aUserMessage, conversation } from './testing/message-fixtures';

const subjects = new Subjects('tollgate');

describe('A2 — agent session ids', () => {
  it('A2 are the route platform, -api- and the first 32 hex of sha256(clientId/agent session)', () => {
    // sha256sum of "cli_0123456789abcdef01234567/sess-1", computed outside JavaScript.
    expect(deriveAgentSessionId('slack', clientId, 'sess-1')).toBe(
      'slack-api-0baf7cba1497730203f02ab4a34387bc',
    );
  });

  it('A2 are session ids of their platform, never a conversation session id', () => {
    const id = deriveAgentSessionId('mattermost', clientId, 'default');
    expect(isAgentSessionId(id)).toBe(true);
    expect(isSessionId(id)).toBe(true);
    expect(platformOfSessionId(id)).toBe('mattermost');
    expect(isAgentSessionId(deriveSessionId(conversation))).toBe(false);
    expect(isAgentSessionId('slack-api-0BAF7CBA1497730203F02AB4A34387BC')).toBe(false);
    expect(isAgentSessionId('teams-api-0baf7cba1497730203f02ab4a34387bc')).toBe(false);
    expect(deriveAgentSessionId('slack', clientId, 'sess-2')).not.toBe(agentSessionId);
  });
});

describe('A2 — argumentsHashOf', () => {
  it('A2 is sha256: and the hex SHA-256 of the RFC 8785 form, whatever the key order', () => {
    // sha256sum of '{"a":[1,"x"],"b":{"c":true}}'
    expect(argumentsHashOf({ b: { c: true }, a: [1, 'x'] })).toBe(
      'sha256:7bc1d4c77305c3b7a6c9baf4eb98ea1a5c613dfad39c54d270608be4f47c693d',
    );
    // RFC 8785 writes 1.0 as 1 and hashes UTF-8: sha256sum of '{"n":1,"s":"é"}'
    expect(argumentsHashOf({ s: 'é', n: 1.0 })).toBe(
      'sha256:7e3827229a9127ed12fbdfc30ff024311411c248dd4afabdd8777c68d4514eb5',
    );
  });
});

describe('A2 — ApprovalRequest and ApprovalCancel', () => {
  it('A2 accepts a request and a cancel, on the api subject only', () => {
    const request = anApprovalRequest({ deadline: '30m', onDeadline: 'deny' });
    const cancel = anApprovalCancel();
    expect(commandSubject(subjects, request)).toBe(`tollgate.cmd.api.${agentSessionId}.approval`);
    expect(commandSubject(subjects, cancel)).toBe(`tollgate.cmd.api.${agentSessionId}.cancel`);
    expect(parseCommandForSubject(subjects, commandSubject(subjects, request), request)).toEqual({
      ok: true,
      value: request,
    });
    expect(parseCommandForSubject(subjects, commandSubject(subjects, cancel), cancel)).toEqual({
      ok: true,
      value: cancel,
    });
    expect(
      parseCommandForSubject(subjects, `tollgate.cmd.slack.${agentSessionId}.approval`, request),
    ).toMatchObject({ ok: false, reason: 'invalid_subject' });
    expect(
      parseCommandForSubject(subjects, `tollgate.cmd.api.${agentSessionId}.cancel`, request),
    ).toMatchObject({ ok: false, reason: 'subject_mismatch' });
  });

  it.each([
    [
      'arguments that are not an object',
      { arguments: [] as never },
      /arguments: must be a JSON object/,
    ],
    [
      'a hash of other arguments',
      { argumentsHash: argumentsHashOf({ other: 1 }) },
      /argumentsHash/,
    ],
    [
      'an id that is not api:<approvalId>',
      { id: 'api:apr_zzzzzzzzzzzzzzzzzzzzzzzzzz' },
      / id: must be api/,
    ],
    ['no approvers', { approvers: [] }, /approvers/],
    ['an always offer with no scope, ttl or uses', { always: { label: 'Always' } }, /always/],
    ['an always offer of 1,001 uses', { always: { uses: 1001 } }, /always/],
    [
      'a group named twice',
      {
        approverGroups: [{ id: 'S03' }, { id: 'S03', name: 'ops' }],
      },
      /approverGroups/,
    ],
    [
      'six groups',
      { approverGroups: Array.from({ length: 6 }, (_, i) => ({ id: `S${i}` })) },
      /approverGroups/,
    ],
    [
      '21 approvers',
      { approvers: Array.from({ length: 21 }, (_, i) => ({ id: `U${i}` })) },
      /approvers/,
    ],
    ['an approver twice', { approvers: [{ id: 'U1' }, { id: 'U1' }] }, /approvers/],
    ['no options', { options: [] }, /options/],
    ['an option twice', { options: ['deny' as const, 'deny' as const] }, /options/],
    ['a deadline that is no duration', { deadline: 'soon' }, /deadline/],
    ['a deadline over 366 days', { deadline: '367d' }, /deadline/],
    ['onDeadline without a deadline', { onDeadline: 'deny' as const }, /onDeadline/],
    ['a 201-character tool', { tool: 't'.repeat(201) }, /tool/],
    ['a 2,001-character summary', { summary: 's'.repeat(2001) }, /summary/],
    ['a 101-character client name', { clientName: 'c'.repeat(101) }, /clientName/],
    ['a client id that is no client id', { clientId: 'cli_X' }, /clientId/],
  ])('A2 refuses a request with %s', (_case, overrides, detail) => {
    const result = parseCommand(anApprovalRequest(overrides));
    expect(result).toMatchObject({ ok: false, reason: 'invalid_payload' });
    if (!result.ok) expect(result.detail).toMatch(detail);
  });

  it('G1 accepts a request whose only approvers are a platform group, and no quorum check against it', () => {
    for (const overrides of [
      { approvers: [], approverGroups: [{ id: 'S03', name: 'ops' }] },
      { approvers: [{ id: 'U1' }], approverGroups: [{ id: 'S03' }], quorum: 3 },
    ]) {
      const request = anApprovalRequest(overrides);
      expect(parseCommand(request)).toEqual({ ok: true, value: request });
    }
  });

  it('A2 refuses arguments over 256 KiB or nested deeper than 64, without overflowing', () => {
    const big = { text: 'x'.repeat(262_144) };
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    for (const args of [big, { deep }]) {
      const result = parseCommand(
        anApprovalRequest({ arguments: args as never, argumentsHash: 'sha256:' + '0'.repeat(64) }),
      );
      expect(result).toMatchObject({ ok: false, reason: 'invalid_payload' });
      if (!result.ok) expect(result.detail).toMatch(/ arguments: must be/);
    }
  });

  it('A2 refuses an unknown field, and a request or cancel on another session', () => {
    expect(parseCommand({ ...anApprovalRequest(), extra: 1 })).toMatchObject({
      reason: 'invalid_payload',
    });
    const otherSession = deriveAgentSessionId('slack', clientId, 'sess-2');
    expect(parseCommand(anApprovalRequest({ sessionId: otherSession }))).toMatchObject({
      reason: 'session_mismatch',
    });
    expect(
      parseCommand(anApprovalRequest({ sessionId: deriveSessionId(conversation) })),
    ).toMatchObject({
      reason: 'session_mismatch',
    });
    expect(
      parseCommand(anApprovalCancel({ sessionId: deriveSessionId(conversation) })),
    ).toMatchObject({ reason: 'session_mismatch' });
    expect(
      parseCommand(
        anApprovalCancel({ sessionId: deriveAgentSessionId('discord', clientId, 'sess-1') }),
      ),
    ).toMatchObject({ reason: 'session_mismatch' });
  });
});

describe('A2 — the api subject token', () => {
  it('A2 builds and parses api command subjects for agent sessions only', () => {
    expect(subjects.apiCommand(agentSessionId, 'approval')).toBe(
      `tollgate.cmd.api.${agentSessionId}.approval`,
    );
    expect(subjects.apiCommandFilter()).toBe('tollgate.cmd.api.>');
    expect(subjects.parseCommandSubject(`tollgate.cmd.api.${agentSessionId}.cancel`)).toEqual({
      ok: true,
      value: { platform: 'api', sessionId: agentSessionId, kind: 'cancel' },
    });
    expect(() => subjects.apiCommand(deriveSessionId(conversation), 'approval')).toThrow(
      InvalidSubjectTokenError,
    );
    expect(() => subjects.command('slack', agentSessionId, 'approval')).toThrow(
      InvalidSubjectTokenError,
    );
  });

  it.each([
    [
      'a conversation session under api',
      `tollgate.cmd.api.${deriveSessionId(conversation)}.approval`,
    ],
    ['a response under api', `tollgate.cmd.api.${agentSessionId}.response`],
    ['a message under api', `tollgate.cmd.api.${agentSessionId}.message`],
    ['an approval under a platform', `tollgate.cmd.slack.${agentSessionId}.approval`],
    ['a cancel under a platform', `tollgate.cmd.slack.${deriveSessionId(conversation)}.cancel`],
  ])('A2 refuses %s', (_case, subject) => {
    expect(subjects.parseCommandSubject(subject)).toMatchObject({
      ok: false,
      reason: 'invalid_subject',
    });
  });

  it('A2 accepts a click on an agent session from its platform, never a model turn there', () => {
    const click = aResponse({ sessionId: agentSessionId, callId: approvalId, via: 'text' });
    expect(
      parseCommandForSubject(subjects, `tollgate.cmd.slack.${agentSessionId}.response`, click),
    ).toEqual({ ok: true, value: click });
    expect(parseCommand(aUserMessage({ sessionId: agentSessionId }))).toMatchObject({
      reason: 'session_mismatch',
    });
    const onDiscord = aResponse({
      sessionId: deriveAgentSessionId('discord', clientId, 'sess-1'),
      callId: approvalId,
    });
    expect(parseCommand(onDiscord)).toMatchObject({ reason: 'session_mismatch' });
  });

  it('A2 accepts a Request with approvers on an agent session', () => {
    const request = aRequest({
      sessionId: agentSessionId,
      id: `${agentSessionId}:3:0`,
      callId: approvalId,
      approvers: [{ id: 'U0001' }, { id: 'U0002' }],
    });
    expect(parseOutput(request)).toEqual({ ok: true, value: request });
  });
});

describe('A2 — ApprovalDecided', () => {
  it('A2 goes to <prefix>.decision.<clientId>.<approvalId>', () => {
    expect(subjects.decision(clientId, approvalId)).toBe(
      `tollgate.decision.${clientId}.${approvalId}`,
    );
    expect(subjects.decisionsAll()).toBe('tollgate.decision.>');
    expect(subjects.parseDecisionSubject(`tollgate.decision.${clientId}.${approvalId}`)).toEqual({
      ok: true,
      value: { clientId, approvalId },
    });
    expect(subjects.parseDecisionSubject(`tollgate.decision.${clientId}.x`)).toMatchObject({
      ok: false,
    });
    expect(() => subjects.decision('cli_*', approvalId)).toThrow(InvalidSubjectTokenError);
  });

  it.each([
    ['approved by a click', anApprovalDecided()],
    [
      'denied at a deadline',
      anApprovalDecided({
        status: 'denied',
        decision: {
          option: 'deny',
          by: { platform: 'slack', id: 'tollgate' },
          via: 'deadline',
          reason: 'deadline passed',
        },
      }),
    ],
    ['expired undeliverable', anApprovalDecided({ status: 'expired', decision: null })],
    ['cancelled', anApprovalDecided({ status: 'cancelled', decision: null })],
  ])('A2 accepts one %s', (_case, event) => {
    expect(parseApprovalDecided(JSON.stringify(event))).toEqual({ ok: true, value: event });
  });

  it.each([
    ['approved without a decision', anApprovalDecided({ decision: null })],
    ['cancelled with a decision', anApprovalDecided({ status: 'cancelled' })],
    ['denied with an approving option', anApprovalDecided({ status: 'denied' })],
    ['an id of another approval', anApprovalDecided({ id: 'decision:apr_x' })],
    ['a conversation session', anApprovalDecided({ sessionId: deriveSessionId(conversation) })],
  ])('A2 refuses one %s', (_case, event) => {
    expect(parseApprovalDecided(event)).toMatchObject({ ok: false, reason: 'invalid_payload' });
  });
});
