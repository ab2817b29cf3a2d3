import type { PlatformFailure } from '@tollgate/binding-core';
import { DiscordAPIError, HTTPError, RateLimitError } from '@discordjs/rest';

/**
 * With `retries: 0` and `rejectOnRateLimit`, @discordjs/rest throws: RateLimitError on a 429
 * (retryAfter already in ms), HTTPError on a 5xx, DiscordAPIError on any other 4xx (Discord
 * refusing on purpose: unknown channel, missing access, invalid form body…), and the
 * transport's own error on a network failure or its timeout (an AbortError).
 */
export function classifyDiscordFailure(error: unknown): PlatformFailure {
  if (error instanceof RateLimitError) {
    return {
      kind: 'transient',
      reason: `discord_rate_limited (${error.scope})`,
      retryAfterMs: Math.max(0, Math.ceil(error.retryAfter)),
    };
  }
  if (error instanceof HTTPError) {
    return error.status >= 500 || error.status === 429
      ? { kind: 'transient', reason: `discord_http_${error.status}` }
      : { kind: 'permanent', reason: `discord_http_${error.status}` };
  }
  if (error instanceof DiscordAPIError) {
    return error.status >= 500 || error.status === 429
      ? { kind: 'transient', reason: `discord_http_${error.status}_${error.code}` }
      : {
          kind: 'permanent',
          reason: `discord_${error.code}: ${error.message}`,
          platformCode: `${error.status}:${error.code}`,
        };
  }
  return {
    kind: 'transient',
    reason: `discord_request_failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    unanswered: true,
  };
}
