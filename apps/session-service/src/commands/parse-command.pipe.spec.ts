import { InvalidPayload, PermanentFailure, type DeliveredMessage } from '@tollgate/messaging';
import { deriveSessionId, encodeMessage, Subjects, type Command } from '@tollgate/protocol';
import type { BaseConfig } from '@tollgate/service-runtime';
import pino from 'pino';
import { commandMessageHandler } from './command.consumer';
import { ParseCommandPipe } from './parse-command.pipe';
import type { Submitted } from './session-scheduler';

const subjects = new Subjects('tollgate');
const slackConversation = {
  platform: 'slack' as const,
  workspaceId: 'T1',
  channelId: 'C1',
  threadId: '1700000000.000100',
};
const discordConversation = {
  platform: 'discord' as const,
  workspaceId: 'G1',
  channelId: 'C1',
  threadId: '',
};

function join(conversation: typeof slackConversation | typeof discordConversation): Command {
  return {
    type: 'JoinSession',
    v: 1,
    id: 'join-1',
    sessionId: deriveSessionId(conversation),
    conversation,
    occurredAt: '2024-05-01T12:00:00.000Z',
  };
}

function delivered(subject: string, command: Command): DeliveredMessage {
  return {
    subject,
    data: encodeMessage(command),
    headers: new Map(),
    deliveryCount: 1,
    streamSeq: 1,
    working: () => undefined,
  };
}

/** Records what reached the scheduler; a refused command must never get there. */
function recordingUseCase(): {
  handled: Command[];
  useCase: { submit(command: Command): Promise<Submitted> };
} {
  const handled: Command[] = [];
  const useCase = {
    submit: (command: Command) => {
      handled.push(command);
      return Promise.resolve('decided' as const);
    },
  };
  return { handled, useCase };
}

describe('ParseCommandPipe and the command handler', () => {
  const logger = pino({ level: 'silent' });
  const slack = join(slackConversation);
  const discordSessionId = deriveSessionId(discordConversation);
  const pipe = new ParseCommandPipe({ TOLLGATE_SUBJECT_PREFIX: 'tollgate' } as BaseConfig);

  it('D5 the pipe hands a command on its own platform subject, parsed, to the handler and the scheduler', async () => {
    const { handled, useCase } = recordingUseCase();
    const handle = commandMessageHandler(useCase, logger);

    await handle(
      pipe.transform(delivered(subjects.command('slack', slack.sessionId, 'join'), slack)),
    );

    expect(handled).toEqual([slack]);
  });

  it.each([
    ['the subject names another platform', `tollgate.cmd.discord.${slack.sessionId}.join`],
    [
      "the subject names another platform's session",
      `tollgate.cmd.discord.${discordSessionId}.join`,
    ],
    [
      "a session id of another platform under the conversation's platform",
      `tollgate.cmd.slack.${discordSessionId}.join`,
    ],
  ])('X1 the pipe refuses as platform_mismatch (dead-lettered) when %s', (_case, subject) => {
    const refusal = refusalOf(() => pipe.transform(delivered(subject, slack)));
    expect(refusal).toBeInstanceOf(PermanentFailure);
    expect(refusal).not.toBeInstanceOf(InvalidPayload);
    expect(refusal).toMatchObject({ reason: expect.stringMatching(/^platform_mismatch: /) });
  });

  it('D5 the pipe refuses a command on the old subject without a platform as an invalid subject', () => {
    const refusal = refusalOf(() =>
      pipe.transform(delivered(`tollgate.cmd.${slack.sessionId}.join`, slack)),
    );
    expect(refusal).toBeInstanceOf(InvalidPayload);
    expect(refusal).toMatchObject({
      reason: expect.stringMatching(/^invalid_payload: invalid_subject: /),
    });
  });

  it('D5 the pipe refuses a body its schema rejects with invalid_payload and the field', () => {
    const subject = `tollgate.cmd.slack.${slack.sessionId}.join`;
    const broken = { ...delivered(subject, slack), data: Buffer.from('{"type":"JoinSession"}') };
    const refusal = refusalOf(() => pipe.transform(broken));
    expect(refusal).toBeInstanceOf(InvalidPayload);
    expect(refusal).toMatchObject({ reason: expect.stringMatching(/^invalid_payload: /) });
  });
});

function refusalOf(parse: () => unknown): unknown {
  try {
    parse();
  } catch (error) {
    return error;
  }
  throw new Error('the pipe let the message through');
}
