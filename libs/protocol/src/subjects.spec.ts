import { InvalidSubjectPrefixError } from './subject-prefix';
import { InvalidSubjectTokenError, Subjects } from './subjects';

const sessionId = 'slack-6887d0a5fc9b0bbb9ed2d76247aca200';
const discordSession = 'discord-0123456789abcdef0123456789abcdef';
const subjects = new Subjects('tollgate');

describe('Subjects builders', () => {
  it('builds the command subjects and filter', () => {
    expect(subjects.command('slack', sessionId, 'message')).toBe(
      `tollgate.cmd.slack.${sessionId}.message`,
    );
    expect(subjects.command('slack', sessionId, 'response')).toBe(
      `tollgate.cmd.slack.${sessionId}.response`,
    );
    expect(subjects.command('discord', discordSession, 'join')).toBe(
      `tollgate.cmd.discord.${discordSession}.join`,
    );
    expect(subjects.commandFilter()).toBe('tollgate.cmd.>');
    expect(subjects.platformCommandFilter('mattermost')).toBe('tollgate.cmd.mattermost.>');
  });

  it('builds the output subjects and filters', () => {
    expect(subjects.callOutput('slack', sessionId, 'call_3_1', 'request')).toBe(
      `tollgate.out.slack.${sessionId}.call.call_3_1.request`,
    );
    expect(subjects.textOutput('slack', sessionId)).toBe(`tollgate.out.slack.${sessionId}.text`);
    expect(subjects.outputFilter('mattermost')).toBe('tollgate.out.mattermost.>');
    expect(subjects.outputsAll()).toBe('tollgate.out.>');
  });

  it('puts the call key, not the call id, in the subject', () => {
    expect(subjects.callOutput('discord', discordSession, 'tool.call 1', 'resolved')).toBe(
      `tollgate.out.discord.${discordSession}.call.h-c92818eaa0ba3458625eda025b5990764da75193.resolved`,
    );
  });

  it('builds dead-letter subjects', () => {
    expect(subjects.dlq('slack-binding')).toBe('tollgate.dlq.slack-binding');
    expect(subjects.dlqAll()).toBe('tollgate.dlq.>');
    expect(subjects.dlqReplayMarker(42)).toBe('tollgate.dlq.replayed.42');
    expect(subjects.dlqReplayMarkerAll()).toBe('tollgate.dlq.replayed.*');
  });

  it('uses its own prefix', () => {
    expect(new Subjects('test_ab12').commandFilter()).toBe('test_ab12.cmd.>');
  });

  it('refuses an invalid prefix', () => {
    expect(() => new Subjects('Tollgate')).toThrow(InvalidSubjectPrefixError);
  });

  it.each([
    ['a dotted session id', () => subjects.command('slack', 'slack-a.b', 'message')],
    [
      'a command for a session of another platform',
      () => subjects.command('discord', sessionId, 'join'),
    ],
    ['a wildcard session id', () => subjects.textOutput('slack', '*')],
    ['a session of another platform', () => subjects.textOutput('discord', sessionId)],
    ['a dotted service', () => subjects.dlq('slack.binding')],
    ['an empty service', () => subjects.dlq('')],
    ['a DLQ sequence of 0', () => subjects.dlqReplayMarker(0)],
    ['a fractional DLQ sequence', () => subjects.dlqReplayMarker(1.5)],
  ])('throws on %s', (_case, build) => {
    expect(build).toThrow(InvalidSubjectTokenError);
  });
});

describe('Subjects.parseCommandSubject', () => {
  it('reads the platform, session and kind', () => {
    expect(subjects.parseCommandSubject(`tollgate.cmd.slack.${sessionId}.response`)).toEqual({
      ok: true,
      value: { platform: 'slack', sessionId, kind: 'response' },
    });
  });

  it.each([
    ['another prefix', `other.cmd.slack.${sessionId}.message`],
    ['an output subject', `tollgate.out.slack.${sessionId}.text`],
    ['the subject without its platform', `tollgate.cmd.${sessionId}.message`],
    ['an unknown platform', `tollgate.cmd.teams.${sessionId}.message`],
    ['a wildcard platform', `tollgate.cmd.*.${sessionId}.message`],
    ['an unknown kind', `tollgate.cmd.slack.${sessionId}.shout`],
    ['no kind', `tollgate.cmd.slack.${sessionId}`],
    ['an extra token', `tollgate.cmd.slack.${sessionId}.message.x`],
    ['a session id that was not derived', 'tollgate.cmd.slack.slack-123.message'],
  ])('refuses %s', (_case, subject) => {
    expect(subjects.parseCommandSubject(subject)).toMatchObject({
      ok: false,
      reason: 'invalid_subject',
    });
  });

  it('refuses a session of another platform as a platform mismatch', () => {
    expect(subjects.parseCommandSubject(`tollgate.cmd.discord.${sessionId}.join`)).toMatchObject({
      ok: false,
      reason: 'platform_mismatch',
    });
  });
});

describe('Subjects.parseOutputSubject', () => {
  it('reads a call output as its call key', () => {
    const subject = subjects.callOutput('slack', sessionId, 'tool.call 1', 'update');

    expect(subjects.parseOutputSubject(subject)).toEqual({
      ok: true,
      value: {
        kind: 'call',
        platform: 'slack',
        sessionId,
        callKey: 'h-c92818eaa0ba3458625eda025b5990764da75193',
        event: 'update',
      },
    });
  });

  it('reads a text output', () => {
    expect(subjects.parseOutputSubject(`tollgate.out.slack.${sessionId}.text`)).toEqual({
      ok: true,
      value: { kind: 'text', platform: 'slack', sessionId },
    });
  });

  it.each([
    ['another prefix', `other.out.slack.${sessionId}.text`],
    ['an unknown platform', `tollgate.out.teams.${sessionId}.text`],
    ['a session of another platform', `tollgate.out.discord.${sessionId}.text`],
    ['an unknown event', `tollgate.out.slack.${sessionId}.call.c1.deleted`],
    ['a missing call key', `tollgate.out.slack.${sessionId}.call.request`],
    ['a word other than call', `tollgate.out.slack.${sessionId}.cell.c1.request`],
    ['a word other than text', `tollgate.out.slack.${sessionId}.txt`],
    ['a wildcard call key', `tollgate.out.slack.${sessionId}.call.*.request`],
    ['a command subject', `tollgate.cmd.slack.${sessionId}.message`],
  ])('refuses %s', (_case, subject) => {
    expect(subjects.parseOutputSubject(subject)).toMatchObject({
      ok: false,
      reason: 'invalid_subject',
    });
  });

  it('keeps the detail bounded for a huge subject', () => {
    const result = subjects.parseOutputSubject(`tollgate.out.${'x'.repeat(10_000)}`);

    expect(result.ok).toBe(false);
    expect(!result.ok && result.detail.length).toBeLessThanOrEqual(300);
  });
});
