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

/**
 * Errors a request throws before it leaves, because its body cannot be encoded (Node's
 * `URIError` / `ERR_INVALID_URI` from form encoding, `ERR_INVALID_CHAR` from a header): the
 * same body fails the same way on every retry, so retrying only holds a consumer slot.
 */
const UNENCODABLE_CODES = new Set(['ERR_INVALID_URI', 'ERR_INVALID_CHAR']);

export function isUnencodableRequest(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  // By name: Node's internals throw their own realm's URIError.
  if ((error as { name?: unknown }).name === 'URIError') return true;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && UNENCODABLE_CODES.has(code);
}

/**
 * How a failed call is treated: a request that could not even be encoded is permanent on
 * every platform (reported or dead-lettered once, never retried for days); the rest is the
 * adapter's to say. A classifier that throws must not turn a retryable platform hiccup into a
 * lost message.
 */
export function classifyPlatformFailure(adapter: PlatformAdapter, error: unknown): PlatformFailure {
  if (isUnencodableRequest(error)) {
    const detail = error instanceof Error ? `: ${error.message}` : '';
    return { kind: 'permanent', reason: `unencodable_request${detail}` };
  }
  try {
    return adapter.classifyFailure(error);
  } catch {
    return { kind: 'transient', reason: 'unclassified_failure' };
  }
}
