import { type DeliveredMessage, InvalidPayload } from '@tollgate/messaging';
import { encodeMessage, type Output, outputSubject, Subjects } from '@tollgate/protocol';
import type { BaseConfig } from '@tollgate/service-runtime';
import { aRequest, aTextOutput } from '../../../protocol/src/testing/message-fixtures';
import { ParseOutputPipe } from './parse-output.pipe';

const subjects = new Subjects('tollgate');
const pipe = new ParseOutputPipe({ TOLLGATE_SUBJECT_PREFIX: 'tollgate' } as BaseConfig);

function delivered(subject: string, data: Uint8Array): DeliveredMessage {
  return {
    subject,
    data,
    headers: new Map(),
    deliveryCount: 1,
    streamSeq: 7,
    working: () => undefined,
  };
}

function refusalOf(parse: () => unknown): unknown {
  try {
    parse();
  } catch (error) {
    return error;
  }
  throw new Error('the pipe let the message through');
}

describe('ParseOutputPipe', () => {
  it.each<[string, Output]>([
    ['a prompt', aRequest()],
    ['a reply', aTextOutput()],
  ])('D5 hands %s on its own subject to the handler parsed, with its delivery', (_, output) => {
    const message = delivered(outputSubject(subjects, output), encodeMessage(output));
    expect(pipe.transform(message)).toEqual({ output, message });
  });

  it('D5 refuses a body its schema rejects with invalid_payload (dead-lettered)', () => {
    const output = aRequest();
    const body = encodeMessage({ ...output, callId: undefined } as unknown as Output);
    const refusal = refusalOf(() =>
      pipe.transform(delivered(outputSubject(subjects, output), body)),
    );
    expect(refusal).toBeInstanceOf(InvalidPayload);
    expect(refusal).toMatchObject({ reason: expect.stringMatching(/^invalid_payload: /) });
  });

  it('D5 refuses an output on a subject that is not its own with invalid_payload', () => {
    const output = aTextOutput();
    const refusal = refusalOf(() =>
      pipe.transform(delivered('tollgate.out.elsewhere', encodeMessage(output))),
    );
    expect(refusal).toBeInstanceOf(InvalidPayload);
    expect(refusal).toMatchObject({ reason: expect.stringMatching(/^invalid_payload: /) });
  });
});
