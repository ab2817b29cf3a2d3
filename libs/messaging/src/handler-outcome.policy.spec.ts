import { InvalidPayload, PermanentFailure, TransientFailure } from './failures';
import { HandlerTimedOut } from './handler-deadline';
import { settleActionFor, type Delivery, type HandlerResult } from './handler-outcome.policy';

const policy = { baseMs: 1_000, maxMs: 60_000 };
const noJitter = (): number => 0;
const first: Delivery = { deliveryCount: 1, maxDeliver: 5 };

/** Given what the handler did on a delivery, when the policy decides: then the settle action. */
function when(result: HandlerResult, delivery: Delivery = first) {
  return settleActionFor(result, delivery, policy, noJitter);
}
const threw = (failure: unknown): HandlerResult => ({ failed: true, failure });

describe('D3 the consumer’s outcome → settle policy, given/when/then', () => {
  it('D3 a handler that returned: ack', () => {
    expect(when({ failed: false })).toEqual({ kind: 'ack' });
    expect(when({ failed: false }, { deliveryCount: 5, maxDeliver: 5 })).toEqual({ kind: 'ack' });
  });

  it('D3 a permanent failure is dead-lettered at once, with its reason', () => {
    expect(when(threw(new PermanentFailure('unknown_session')))).toEqual({
      kind: 'dead_letter',
      reason: 'unknown_session',
    });
    expect(when(threw(new InvalidPayload('no id')))).toEqual({
      kind: 'dead_letter',
      reason: 'invalid_payload: no id',
    });
  });

  it('D3 a transient failure is naked with a delay that doubles per delivery; its error is expected', () => {
    const failure = threw(new TransientFailure('upstream_503'));
    expect(when(failure)).toEqual({
      kind: 'nak',
      reason: 'upstream_503',
      delayMs: 1_000,
      expected: true,
    });
    expect(when(failure, { deliveryCount: 3, maxDeliver: 5 })).toMatchObject({ delayMs: 4_000 });
  });

  it('D3 a transient failure’s retry-after is a floor on the delay', () => {
    const failure = threw(new TransientFailure('rate_limited', { retryAfterMs: 7_500 }));
    expect(when(failure)).toMatchObject({ kind: 'nak', delayMs: 7_500 });
  });

  it('D3 any other error counts as transient, but is unexpected so its error is logged', () => {
    expect(when(threw(new TypeError('x is undefined')))).toEqual({
      kind: 'nak',
      reason: 'TypeError: x is undefined',
      delayMs: 1_000,
      expected: false,
    });
    expect(when(threw('a string'))).toMatchObject({ kind: 'nak', reason: 'thrown: a string' });
  });

  it('D3 a handler past its deadline is retried like a transient failure (R5)', () => {
    expect(when(threw(new HandlerTimedOut(250)))).toEqual({
      kind: 'nak',
      reason: 'handler_timeout: no result within 250 ms',
      delayMs: 1_000,
      expected: true,
    });
  });

  it('D3 any failure on the last allowed delivery is dead-lettered as max_deliver_exhausted', () => {
    const last: Delivery = { deliveryCount: 5, maxDeliver: 5 };
    expect(when(threw(new TransientFailure('upstream_503')), last)).toEqual({
      kind: 'dead_letter',
      reason: 'max_deliver_exhausted: upstream_503',
    });
    expect(when(threw(new Error('boom')), last)).toEqual({
      kind: 'dead_letter',
      reason: 'max_deliver_exhausted: Error: boom',
    });
    // A permanent failure keeps its own reason, whichever delivery it is.
    expect(when(threw(new PermanentFailure('unknown_session')), last)).toEqual({
      kind: 'dead_letter',
      reason: 'unknown_session',
    });
  });

  it('D3 without a max_deliver (0 or less) a failure is retried however often it came', () => {
    const failure = threw(new TransientFailure('upstream_503'));
    expect(when(failure, { deliveryCount: 50, maxDeliver: -1 })).toMatchObject({
      kind: 'nak',
      delayMs: 60_000,
    });
    expect(when(failure, { deliveryCount: 50, maxDeliver: 0 })).toMatchObject({ kind: 'nak' });
  });
});
