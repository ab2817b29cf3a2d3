import { LIMITS } from './limits';

/**
 * The id of the `n`-th output caused by the journaled event at `seq` (docs/protocol.md §1). It is
 * also the `Nats-Msg-Id`, so a relay that publishes the same outbox row twice is deduplicated.
 * Throws on arguments no caller should produce: a bad id would silently break deduplication.
 */
export function outputId(sessionId: string, seq: number, n: number): string {
  if (!Number.isSafeInteger(seq) || seq < 1) {
    throw new RangeError(
      `output seq must be an integer >= 1 (use unjournaledOutputId for 0), got ${seq}`,
    );
  }
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`output index must be an integer >= 0, got ${n}`);
  }
  return `${sessionId}:${seq}:${n}`;
}

/**
 * The id of an output no journaled event caused (seq 0), e.g. the refusal of a response for an
 * unknown session: tying it to the command keeps a redelivered command from posting twice.
 */
export function unjournaledOutputId(sessionId: string, commandId: string): string {
  if (commandId.length < 1 || commandId.length > LIMITS.commandId) {
    throw new RangeError(`command id must have 1..${LIMITS.commandId} characters`);
  }
  return `${sessionId}:0:${commandId}`;
}

/**
 * The id of the `ToolInteractionUndeliverable` for a `Request` that can never be shown
 * (docs/protocol.md §4): derived from the output, so every replica that gives up on it sends the
 * same command and the stream and the session keep one.
 */
export function undeliverableCommandId(requestOutputId: string): string {
  return `undeliverable:${requestOutputId}`;
}

/**
 * The id of the `ToolInteractionShown` for one posted message (G4): derived from the message's
 * platform ids, so a replica that reports the same post again sends the same command and the
 * stream and the session keep one; a repost is another message, so another id.
 */
export function shownCommandId(
  platform: string,
  messageRef: { readonly channelId: string; readonly messageId: string },
): string {
  return `shown:${platform}:${messageRef.channelId}:${messageRef.messageId}`;
}
