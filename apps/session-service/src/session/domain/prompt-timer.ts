import type { PromptTimerPolicy } from '../../tools/tool-policy';
import type { PromptTimers } from '@tollgate/session-read-model';

/**
 * S22: what a prompt's timer asks for when it comes due. Reminder `n` counts from 1 in the
 * order the policy's `remind` durations run.
 */
export type PromptTimer =
  | { readonly kind: 'reminder'; readonly callId: string; readonly reminder: number }
  | {
      readonly kind: 'deadline';
      readonly callId: string;
      readonly onDeadline: 'deny' | 'expire';
    };

/** The option keys a deadline settles a call with: not standard keys, so no click makes them. */
export const DEADLINE_EXPIRED_KEY = 'deadline_expired';
export const DEADLINE_DENIED_KEY = 'deadline_denied';

/** The reason on the ended prompt (`Update{Expired}`), and the call's line in the batch reply. */
export const DEADLINE_REASON = 'deadline passed';
export const RESULT_DEADLINE_EXPIRED = `expired (${DEADLINE_REASON})`;
export const RESULT_DEADLINE_DENIED = `denied (${DEADLINE_REASON})`;

/** The tool result of a call a deadline settled; undefined for any other answer. */
export function deadlineResult(optionKey: string | undefined): string | undefined {
  if (optionKey === DEADLINE_EXPIRED_KEY) return RESULT_DEADLINE_EXPIRED;
  if (optionKey === DEADLINE_DENIED_KEY) return RESULT_DEADLINE_DENIED;
  return undefined;
}

/** The policy's durations as instants from the request; undefined when it sets none. */
export function promptTimersAt(
  policy: PromptTimerPolicy | undefined,
  requestedAt: string,
): PromptTimers | undefined {
  if (!policy) return undefined;
  const from = Date.parse(requestedAt);
  const at = (ms: number) => new Date(from + ms).toISOString();
  return {
    remindAt: policy.remindMs.map(at),
    ...(policy.deadlineMs === undefined
      ? {}
      : { deadline: { at: at(policy.deadlineMs), onDeadline: policy.onDeadline } }),
  };
}

/**
 * The command id a timer is decided under: the command ledger turns a second firing (another
 * poller, a crash before the row was deleted) into a duplicate, so it fires once. Command ids
 * are unique per platform only, hence the session id.
 */
export function promptTimerKey(sessionId: string, timer: PromptTimer): string {
  return timer.kind === 'reminder'
    ? `timer:${sessionId}:${timer.callId}:reminder:${timer.reminder}`
    : `timer:${sessionId}:${timer.callId}:deadline`;
}
