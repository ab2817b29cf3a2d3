import { InvalidPayload, PermanentFailure, type DeliveredMessage } from '@tollgate/messaging';
import { deriveSessionId, encodeMessage, Subjects, type Command } from '@tollgate/protocol';
import pino from 'pino';
import { commandMessageHandler } from './command.consumer';
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

describe('commandMessageHandler', () => {
  const logger = pino({ level: 'silent' });
  const slack = join(slackConversation);
  const discordSessionId = deriveSessionId(discordConversation);

  it('hands a command on its own platform subject to the use case', async () => {
    const { handled, useCase } = recordingUseCase();
    const handle = commandMessageHandler(subjects, useCase, logger);

    await handle(delivered(`tollgate.cmd.slack.${slack.sessionId}.join`, slack));

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
  ])('X1 dead-letters as platform_mismatch when %s', async (_case, subject) => {
    const { handled, useCase } = recordingUseCase();
    const handle = commandMessageHandler(subjects, useCase, logger);

    const outcome = handle(delivered(subject, slack));

    await expect(outcome).rejects.toBeInstanceOf(PermanentFailure);
    await expect(outcome).rejects.not.toBeInstanceOf(InvalidPayload);
    await expect(outcome).rejects.toMatchObject({
      reason: expect.stringMatching(/^platform_mismatch: /),
    });
    expect(handled).toEqual([]);
  });

  it('dead-letters a command on the old subject without a platform as an invalid subject', async () => {
    const { handled, useCase } = recordingUseCase();
    const handle = commandMessageHandler(subjects, useCase, logger);

    const outcome = handle(delivered(`tollgate.cmd.${slack.sessionId}.join`, slack));

    await expect(outcome).rejects.toMatchObject({
      reason: expect.stringMatching(/^invalid_payload: invalid_subject: /),
    });
    expect(handled).toEqual([]);
  });
});
