/**
 * What a message handler throws to tell the consumer runner how to settle a message.
 * Anything else thrown counts as transient: retrying an unknown failure is safer than
 * dead-lettering a message that would have succeeded a moment later.
 */

/** Worth retrying: network, timeout, 5xx, 429. `retryAfterMs` sets a floor on the delay. */
export class TransientFailure extends Error {
  override readonly name = 'TransientFailure';
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly reason: string,
    options: { retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(reason, { cause: options.cause });
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Retrying cannot help: the message is dead-lettered at once. */
export class PermanentFailure extends Error {
  override readonly name: string = 'PermanentFailure';

  constructor(
    readonly reason: string,
    options: { cause?: unknown } = {},
  ) {
    super(reason, { cause: options.cause });
  }
}

/** A payload that fails validation; its reason reads `invalid_payload: <detail>`. */
export class InvalidPayload extends PermanentFailure {
  override readonly name: string = 'InvalidPayload';

  constructor(detail: string, options: { cause?: unknown } = {}) {
    super(`invalid_payload: ${detail}`, options);
  }
}

/** The reason a failure is logged and dead-lettered with, safe to put in a header. */
export function failureReason(failure: unknown): string {
  const raw =
    failure instanceof TransientFailure || failure instanceof PermanentFailure
      ? failure.reason
      : failure instanceof Error
        ? `${failure.name}: ${failure.message}`
        : `thrown: ${String(failure)}`;
  // Header values cannot hold line breaks, and a stack-sized reason helps nobody.
  return raw
    .replace(/[\r\n]+/g, ' ')
    .trim()
    .slice(0, 500);
}
