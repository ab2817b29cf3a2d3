import { parseCommandForSubject, parseOutputForSubject } from './message.parser';
import { commandSubject, outputSubject } from './message-subject';
import { Subjects } from './subjects';
import {
  aJoinSession,
  aRejected,
  aRequest,
  aResolved,
  aResponse,
  aTextOutput,
  anUpdate,
  aUserMessage,
  sessionId,
} from './testing/message-fixtures';

const subjects = new Subjects('tollgate');

describe('commandSubject', () => {
  it.each([
    ['UserMessage', aUserMessage(), 'message'],
    ['ToolInteractionResponse', aResponse(), 'response'],
    ['JoinSession', aJoinSession(), 'join'],
  ])('publishes a %s on .%s', (_case, command, kind) => {
    expect(commandSubject(subjects, command)).toBe(`tollgate.cmd.slack.${sessionId}.${kind}`);
  });
});

describe('outputSubject', () => {
  const call = `tollgate.out.slack.${sessionId}.call.call_3_1`;

  it.each([
    ['ToolInteractionRequest', aRequest(), `${call}.request`],
    ['ToolInteractionUpdate', anUpdate(), `${call}.update`],
    ['ToolInteractionResolved', aResolved(), `${call}.resolved`],
    ['ToolInteractionRejected', aRejected(), `${call}.rejected`],
    ['TextOutput', aTextOutput(), `tollgate.out.slack.${sessionId}.text`],
  ])('publishes a %s on %s', (_case, output, subject) => {
    expect(outputSubject(subjects, output)).toBe(subject);
  });

  it('uses the call key for a call id that is no subject token', () => {
    expect(outputSubject(subjects, aResolved({ callId: 'tool.call 1' }))).toBe(
      `tollgate.out.slack.${sessionId}.call.h-c92818eaa0ba3458625eda025b5990764da75193.resolved`,
    );
  });
});

describe('parseCommandForSubject', () => {
  it('accepts a command on its own subject', () => {
    const command = aResponse();

    expect(
      parseCommandForSubject(subjects, `tollgate.cmd.slack.${sessionId}.response`, command),
    ).toEqual({ ok: true, value: command });
  });

  it('refuses a command on the subject of another kind', () => {
    const result = parseCommandForSubject(
      subjects,
      `tollgate.cmd.slack.${sessionId}.message`,
      aResponse(),
    );

    expect(result).toMatchObject({ ok: false, reason: 'subject_mismatch' });
  });

  it('refuses a command on the subject of another session', () => {
    const other = 'slack-00000000000000000000000000000000';
    const result = parseCommandForSubject(
      subjects,
      `tollgate.cmd.slack.${other}.join`,
      aJoinSession(),
    );

    expect(result).toMatchObject({ ok: false, reason: 'subject_mismatch' });
  });

  it('refuses a command under another prefix', () => {
    const result = parseCommandForSubject(
      subjects,
      `other.cmd.slack.${sessionId}.join`,
      aJoinSession(),
    );

    expect(result).toMatchObject({ ok: false, reason: 'invalid_subject' });
  });

  describe('when the subject platform, the session id and the conversation disagree', () => {
    const discordSession = 'discord-00000000000000000000000000000000';

    it.each([
      [
        'a slack command published under the discord platform token',
        `tollgate.cmd.discord.${sessionId}.join`,
      ],
      [
        'a discord session id under the slack platform token',
        `tollgate.cmd.slack.${discordSession}.join`,
      ],
      [
        'a slack command on a discord session subject',
        `tollgate.cmd.discord.${discordSession}.join`,
      ],
    ])('refuses %s as platform_mismatch', (_case, subject) => {
      expect(parseCommandForSubject(subjects, subject, aJoinSession())).toMatchObject({
        ok: false,
        reason: 'platform_mismatch',
      });
    });
  });

  it('reports an invalid payload before the subject', () => {
    const result = parseCommandForSubject(subjects, 'anything', '{');

    expect(result).toMatchObject({ ok: false, reason: 'invalid_json' });
  });
});

describe('parseOutputForSubject', () => {
  it('accepts an output on its own subject', () => {
    const output = aTextOutput();

    expect(parseOutputForSubject(subjects, `tollgate.out.slack.${sessionId}.text`, output)).toEqual(
      { ok: true, value: output },
    );
  });

  it('refuses an output on the subject of another event', () => {
    const subject = `tollgate.out.slack.${sessionId}.call.call_3_1.update`;

    expect(parseOutputForSubject(subjects, subject, aResolved())).toMatchObject({
      ok: false,
      reason: 'subject_mismatch',
    });
  });

  it('refuses an output under another prefix', () => {
    const subject = `other.out.slack.${sessionId}.text`;

    expect(parseOutputForSubject(subjects, subject, aTextOutput())).toMatchObject({
      ok: false,
      reason: 'subject_mismatch',
    });
  });
});
