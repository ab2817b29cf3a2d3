import type { PlatformFailure } from '../platform-adapter.port';
import { type DeliveryFailureContext, deliveryHoldMs } from './delivery-failure.policy';

const answered: PlatformFailure = { kind: 'transient', reason: 'slack_http_503' };
const unanswered: PlatformFailure = { kind: 'transient', reason: 'timeout', unanswered: true };
const refused: PlatformFailure = { kind: 'permanent', reason: 'slack_channel_not_found' };
const context: DeliveryFailureContext = { landingMs: 1_000, findable: true };

describe('R3 a reply’s failed delivery call, given/when/then', () => {
  it('R3 a text post that got no answer holds its lease until it could have landed', () => {
    expect(deliveryHoldMs('post_text', unanswered, context)).toBe(1_000);
  });

  it('R3 a text post the platform answered, or refused, is released at once', () => {
    expect(deliveryHoldMs('post_text', answered, context)).toBe(0);
    expect(deliveryHoldMs('post_text', refused, context)).toBe(0);
  });

  it('R3 a look for an earlier post, and a post no retry could find, are released at once', () => {
    expect(deliveryHoldMs('find_posted_text', unanswered, context)).toBe(0);
    expect(deliveryHoldMs('post_text', unanswered, { ...context, findable: false })).toBe(0);
    expect(deliveryHoldMs('send_notice', unanswered, context)).toBe(0);
  });
});
