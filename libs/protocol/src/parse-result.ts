/**
 * Why a message, subject or setting was refused. Closed, so a consumer can switch over it
 * exhaustively and put it in the `Tollgate-Dlq-Reason` header as is.
 */
export const REFUSAL_REASONS = [
  'invalid_json',
  'not_an_object',
  'unknown_version',
  'unknown_type',
  'invalid_payload',
  'session_mismatch',
  'subject_mismatch',
  'invalid_subject',
  'platform_mismatch',
  'invalid_prefix',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

export interface Accepted<T> {
  readonly ok: true;
  readonly value: T;
}

export interface Refused {
  readonly ok: false;
  readonly reason: RefusalReason;
  /** Names the field path and the problem; bounded, since it ends up in headers and logs. */
  readonly detail: string;
}

export type ParseResult<T> = Accepted<T> | Refused;

/**
 * Details can quote attacker-controlled input (unknown keys, subjects); a NATS header or a log
 * line must not grow with it.
 */
export const MAX_DETAIL_LENGTH = 300;

export function accepted<T>(value: T): Accepted<T> {
  return { ok: true, value };
}

export function refused(reason: RefusalReason, detail: string): Refused {
  return { ok: false, reason, detail: boundDetail(detail) };
}

export function boundDetail(detail: string): string {
  // Headers are line-based, so a control character smuggled in through quoted input must not
  // survive.
  // eslint-disable-next-line no-control-regex
  const oneLine = detail.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  if (oneLine.length <= MAX_DETAIL_LENGTH) {
    return oneLine;
  }
  return `${oneLine.slice(0, MAX_DETAIL_LENGTH - 1)}…`;
}

/** A short, printable rendering of an offending value for a detail message. */
export function quoteValue(value: unknown, maxLength = 60): string {
  if (value === undefined) {
    return 'nothing';
  }
  let text: string;
  try {
    text = JSON.stringify(value) ?? typeof value;
  } catch {
    text = typeof value;
  }
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}
