import type { PlatformFailure } from '@tollgate/binding-core';
import { ClientError } from '@mattermost/client';
import { MattermostApiError } from './mattermost-client';

/**
 * 5xx and 429 (with its Retry-After) are transient, and so is anything that never got an
 * answer (network trouble, a call that timed out); every other 4xx is Mattermost refusing on
 * purpose (no permission, no such channel or post, invalid props) and no retry fixes it.
 */
export function classifyMattermostFailure(error: unknown): PlatformFailure {
  if (error instanceof ClientError) {
    const status =
      error instanceof MattermostApiError ? error.httpStatus : Number(error.status_code);
    const id = error.server_error_id ? ` ${error.server_error_id}` : '';
    if (status === 429) {
      const retryAfterMs = error instanceof MattermostApiError ? error.retryAfterMs : undefined;
      return {
        kind: 'transient',
        reason: 'mattermost_rate_limited',
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      };
    }
    if (Number.isInteger(status) && status >= 400 && status < 500) {
      return {
        kind: 'permanent',
        reason: `mattermost_http_${status}${id}`,
        platformCode: `${status}:${error.server_error_id ?? ''}`,
      };
    }
    if (Number.isInteger(status) && status >= 500) {
      return { kind: 'transient', reason: `mattermost_http_${status}${id}` };
    }
    return {
      kind: 'transient',
      reason: `mattermost_client_error: ${error.message}`,
      unanswered: true,
    };
  }
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return { kind: 'transient', reason: 'mattermost_timeout', unanswered: true };
  }
  return {
    kind: 'transient',
    reason: `mattermost_request_failed: ${error instanceof Error ? error.message : String(error)}`,
    unanswered: true,
  };
}
