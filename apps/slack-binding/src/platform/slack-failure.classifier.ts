import type { PlatformFailure } from '@tollgate/binding-core';
import {
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
} from '@slack/web-api';

/** Slack error codes (answered as 200 `{ok:false}`) that are worth retrying. */
const TRANSIENT_CODES = new Set([
  'ratelimited',
  'rate_limited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'team_added_to_org',
]);

/**
 * Network trouble, 5xx and 429 are transient (429 with its Retry-After); everything Slack
 * refuses on purpose (`message_not_found`, `channel_not_found`, `invalid_auth`, …) is not.
 */
export function classifySlackFailure(error: unknown): PlatformFailure {
  if (error instanceof WebAPIRateLimitedError) {
    return {
      kind: 'transient',
      reason: 'slack_rate_limited',
      retryAfterMs: error.retryAfter * 1000,
    };
  }
  if (error instanceof WebAPIHTTPError) {
    return error.statusCode >= 500 || error.statusCode === 429
      ? { kind: 'transient', reason: `slack_http_${error.statusCode}` }
      : { kind: 'permanent', reason: `slack_http_${error.statusCode}` };
  }
  if (error instanceof WebAPIRequestError) {
    return {
      kind: 'transient',
      reason: `slack_request_failed: ${error.original.message}`,
      unanswered: true,
    };
  }
  if (error instanceof WebAPIPlatformError) {
    const code = error.data.error;
    return TRANSIENT_CODES.has(code)
      ? { kind: 'transient', reason: `slack_${code}` }
      : { kind: 'permanent', reason: `slack_${code}`, platformCode: code };
  }
  return {
    kind: 'transient',
    reason: `slack_unknown_failure: ${error instanceof Error ? error.message : String(error)}`,
    unanswered: true,
  };
}
