import { field } from '../grants/grant.formatter';
import type { DeadLetter, ReplayRecord } from './dead-letter';

/** One line per copy: what `dlq show` and `dlq replay` take, then why and whence. */
export function deadLetterLine(letter: DeadLetter, replayed: ReplayRecord | undefined): string {
  return [
    `seq=${letter.seq}`,
    `time=${letter.time.toISOString()}`,
    field('service', letter.service ?? '?'),
    field('subject', letter.originalSubject ?? '?'),
    `reason=${JSON.stringify(letter.reason ?? '')}`,
    ...(letter.truncatedFrom === undefined ? [] : [`truncated_from=${letter.truncatedFrom}`]),
    ...(replayed === undefined ? [] : [`replayed=${replayed.replayedAt}`]),
  ].join(' ');
}

export function deadLetterJson(letter: DeadLetter, replayed: ReplayRecord | undefined): object {
  return {
    seq: letter.seq,
    time: letter.time.toISOString(),
    service: letter.service ?? null,
    originalSubject: letter.originalSubject ?? null,
    reason: letter.reason ?? null,
    truncatedFrom: letter.truncatedFrom ?? null,
    replayed: replayed ?? null,
  };
}

/**
 * The payload as text: pretty JSON when it parses, else a JSON string literal, so a control
 * character in a dead letter cannot reach the operator's terminal.
 */
export function payloadText(data: Uint8Array): string {
  const text = new TextDecoder().decode(data);
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return JSON.stringify(text);
  }
}

export function letterCount(count: number): string {
  return `${count} dead letter${count === 1 ? '' : 's'}`;
}
