import { DLQ_HEADERS } from '@tollgate/protocol';

/** One dead-lettered copy in `<PREFIX>_DLQ`, as its headers describe it (docs/protocol.md §2). */
export interface DeadLetter {
  readonly seq: number;
  readonly time: Date;
  /** Where the copy was written: `<prefix>.dlq.<service>`. */
  readonly subject: string;
  readonly service: string | undefined;
  readonly reason: string | undefined;
  readonly originalSubject: string | undefined;
  /** Set only on a copy cut to fit max_payload: the original payload's size in bytes. */
  readonly truncatedFrom: number | undefined;
  /** Every header, last value of each, in the order the copy carries them. */
  readonly headers: readonly (readonly [string, string])[];
  readonly data: Uint8Array;
}

/** What `dlq replay` wrote down after replaying the copy at `dlqSeq`. */
export interface ReplayRecord {
  readonly dlqSeq: number;
  readonly replayedAt: string;
  readonly subject: string;
  readonly msgId: string;
  /** Where the replay was stored in its stream (its `PubAck`). */
  readonly stream: string;
  readonly streamSeq: number;
}

export function deadLetterOf(stored: {
  readonly seq: number;
  readonly time: Date;
  readonly subject: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly data: Uint8Array;
}): DeadLetter {
  const header = (name: string): string | undefined =>
    stored.headers.find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  const truncated = header(DLQ_HEADERS.truncatedFrom);
  return {
    ...stored,
    service: header(DLQ_HEADERS.service),
    reason: header(DLQ_HEADERS.reason),
    originalSubject: header(DLQ_HEADERS.originalSubject),
    // Present at all means cut, whatever its value says.
    truncatedFrom:
      truncated === undefined ? undefined : Number.isFinite(+truncated) ? +truncated : -1,
  };
}

/** A marker's payload; anything else found on a marker subject is not one. */
export function replayRecordOf(text: string): ReplayRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<ReplayRecord>;
    return typeof value.dlqSeq === 'number' &&
      typeof value.replayedAt === 'string' &&
      typeof value.subject === 'string' &&
      typeof value.msgId === 'string' &&
      typeof value.stream === 'string' &&
      typeof value.streamSeq === 'number'
      ? (value as ReplayRecord)
      : undefined;
  } catch {
    return undefined;
  }
}
