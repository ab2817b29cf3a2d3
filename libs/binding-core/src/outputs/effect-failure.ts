import { PermanentFailure, TransientFailure } from '@tollgate/messaging';
import type { PlatformAdapter, PlatformFailure } from '../platform-adapter.port';

/** The platform calls the core makes, named in every failure reason. */
export type PlatformEffect =
  | 'post_prompt'
  | 'edit_prompt'
  | 'find_posted_prompt'
  | 'send_notice'
  | 'post_text'
  | 'find_posted_text';

/**
 * How a failed platform call settles its message: transient → nak with a growing delay that
 * honours the platform's Retry-After; permanent → dead-letter at once. The reason reads
 * `<effect>: <the adapter's reason>`, e.g. `edit_prompt: rate_limited`.
 */
export function effectFailure(
  adapter: PlatformAdapter,
  effect: PlatformEffect,
  error: unknown,
): TransientFailure | PermanentFailure {
  const failure = classifyPlatformFailure(adapter, error);
  const reason = `${effect}: ${failure.reason}`;
  switch (failure.kind) {
    case 'transient':
      return new TransientFailure(reason, {
        cause: error,
        ...(failure.retryAfterMs === undefined ? {} : { retryAfterMs: failure.retryAfterMs }),
      });
    case 'permanent':
      return new PermanentFailure(reason, { cause: error });
  }
}

// A classifier that throws must not turn a retryable platform hiccup into a lost message.
export function classifyPlatformFailure(adapter: PlatformAdapter, error: unknown): PlatformFailure {
  try {
    return adapter.classifyFailure(error);
  } catch {
    return { kind: 'transient', reason: 'unclassified_failure' };
  }
}
