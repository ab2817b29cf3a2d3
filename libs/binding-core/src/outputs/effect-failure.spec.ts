import { stringify } from 'node:querystring';
import { PermanentFailure, TransientFailure } from '@tollgate/messaging';
import type { PlatformAdapter, PlatformFailure } from '../platform-adapter.port';
import { classifyPlatformFailure, effectFailure } from './effect-failure';

/** An adapter that takes every failure for a transient one, as an SDK's unknown error is. */
function adapter(failure: PlatformFailure = { kind: 'transient', reason: 'unknown' }) {
  return { classifyFailure: () => failure } as unknown as PlatformAdapter;
}

/** What Node's form encoding throws on a lone surrogate (Slack's client sends forms). */
function formEncodingError(): unknown {
  try {
    return stringify({ text: 'reply\ud800' });
  } catch (error) {
    return error;
  }
}

describe('effectFailure', () => {
  it('X19 makes a request that cannot be encoded permanent, whatever the adapter says', () => {
    const error = formEncodingError();
    expect(error).toMatchObject({ name: 'URIError', code: 'ERR_INVALID_URI' });
    expect(classifyPlatformFailure(adapter(), error)).toMatchObject({
      kind: 'permanent',
      reason: expect.stringMatching(/^unencodable_request/),
    });
    const failure = effectFailure(adapter(), 'post_text', error);
    expect(failure).toBeInstanceOf(PermanentFailure);
    expect(failure.message).toMatch(/^post_text: unencodable_request/);
    const badHeader = Object.assign(new TypeError('Invalid character in header'), {
      code: 'ERR_INVALID_CHAR',
    });
    expect(classifyPlatformFailure(adapter(), badHeader).kind).toBe('permanent');
  });

  it('leaves every other failure to the adapter, and a throwing classifier to a retry', () => {
    expect(effectFailure(adapter(), 'post_text', new Error('socket hang up'))).toBeInstanceOf(
      TransientFailure,
    );
    const throwing = {
      classifyFailure: () => {
        throw new Error('classifier bug');
      },
    } as unknown as PlatformAdapter;
    expect(classifyPlatformFailure(throwing, new Error('x'))).toEqual({
      kind: 'transient',
      reason: 'unclassified_failure',
    });
  });
});
