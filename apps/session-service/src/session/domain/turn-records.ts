import { LIMITS } from '@tollgate/protocol';
import type { ToolCall } from '@tollgate/session-read-model';
import type { SessionRecorder } from './session-recorder';

export const RESULT_DENIED = 'denied';
export const RESULT_REFUSED = 'refused by policy';
export const RESULT_UNKNOWN = 'unknown tool';

export function recordResult(
  recorder: SessionRecorder,
  call: ToolCall,
  outcome: 'denied' | 'refused_by_policy' | 'unknown_tool' | 'error',
  result: string,
): void {
  recorder.record({
    type: 'ToolCallRecorded',
    callId: call.callId,
    toolName: call.toolName,
    outcome,
    result,
  });
}

/**
 * A reply may be longer than a TextOutput may carry (`You said: ` + a 40 000-character
 * message); every binding would dead-letter it. The journal keeps the whole reply.
 */
export function boundedText(text: string): string {
  if (text.length <= LIMITS.text) return text;
  let end = LIMITS.text - 1;
  // Never leave half of a surrogate pair before the ellipsis.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** The message that started the running turn: its sender is whose grants count. */
export function lastUserMessage(recorder: SessionRecorder) {
  const turn = recorder.current.turn;
  const turnSeq = turn.phase === 'NoActive' ? 0 : turn.turnSeq;
  const message = recorder.current.turnMessage;
  if (!message || message.seq !== turnSeq) {
    throw new Error(`session ${recorder.current.sessionId} has no message for turn ${turnSeq}`);
  }
  return message;
}
