import { type DeliveredMessage, InvalidPayload, PermanentFailure } from '@tollgate/messaging';
import { Subjects } from '@tollgate/protocol';
import type { BaseConfig } from '@tollgate/service-runtime';
import {
  anApprovalDecided as decided,
  approvalId,
  clientId,
} from '../../../../libs/protocol/src/testing/approval-fixtures';
import { ParseDecisionPipe } from './parse-decision.pipe';

const subjects = new Subjects('tollgate');

function delivered(subject: string, data: unknown): DeliveredMessage {
  return {
    subject,
    data: Buffer.from(typeof data === 'string' ? data : JSON.stringify(data)),
    headers: new Map(),
    deliveryCount: 1,
    streamSeq: 1,
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

describe('ParseDecisionPipe (the approval API decision boundary)', () => {
  const pipe = new ParseDecisionPipe({ TOLLGATE_SUBJECT_PREFIX: 'tollgate' } as BaseConfig);

  it('A1 hands an event on the subject of its client and approval to the use case, parsed', () => {
    const event = decided();
    expect(pipe.transform(delivered(subjects.decision(clientId, approvalId), event))).toEqual(
      event,
    );
  });

  it('A1 refuses a body its schema rejects as invalid_payload (dead-lettered)', () => {
    const refusal = refusalOf(() =>
      pipe.transform(
        delivered(subjects.decision(clientId, approvalId), decided({ decision: null })),
      ),
    );
    expect(refusal).toBeInstanceOf(InvalidPayload);
    expect(refusal).toMatchObject({ reason: expect.stringMatching(/^invalid_payload: /) });
  });

  it.each([
    ['another approval', () => subjects.decision(clientId, 'apr_0123456789abcdefghijklmnoq')],
    ['another client', () => subjects.decision('cli_fedcba9876543210fedcba98', approvalId)],
    ['no decision at all', () => `tollgate.cmd.api.x.request`],
  ])('A1 refuses as subject_mismatch (dead-lettered) an event whose subject names %s', (_c, at) => {
    const refusal = refusalOf(() => pipe.transform(delivered(at(), decided())));
    expect(refusal).toBeInstanceOf(PermanentFailure);
    expect(refusal).not.toBeInstanceOf(InvalidPayload);
    expect(refusal).toMatchObject({ reason: expect.stringMatching(/^subject_mismatch: /) });
  });
});
