import { failureReason, InvalidPayload, PermanentFailure, TransientFailure } from './failures';

describe('failureReason', () => {
  it('uses the reason a typed failure carries', () => {
    expect(failureReason(new TransientFailure('platform_unavailable: 503'))).toBe(
      'platform_unavailable: 503',
    );
    expect(failureReason(new PermanentFailure('platform_rejected: 403'))).toBe(
      'platform_rejected: 403',
    );
    expect(failureReason(new InvalidPayload('missing callId'))).toBe(
      'invalid_payload: missing callId',
    );
  });

  it('names an unknown error and describes a thrown non-error', () => {
    expect(failureReason(new RangeError('too far'))).toBe('RangeError: too far');
    expect(failureReason('a bare string')).toBe('thrown: a bare string');
  });

  it('fits in a header: one line, bounded length', () => {
    const reason = failureReason(new Error(`first\r\nsecond\n${'x'.repeat(2_000)}`));
    expect(reason).not.toMatch(/[\r\n]/);
    expect(reason.startsWith('Error: first second')).toBe(true);
    expect(reason.length).toBeLessThanOrEqual(500);
  });
});

describe('InvalidPayload', () => {
  it('is a permanent failure', () => {
    expect(new InvalidPayload('x')).toBeInstanceOf(PermanentFailure);
  });
});
