import {
  DLQ_HEADERS,
  parseCommandForSubject,
  parseOutputForSubject,
  type Subjects,
} from '@tollgate/protocol';
import type { DeadLetter } from './dead-letter';

/** What replaying a dead letter publishes, or why it must not be replayed. */
export type ReplayPlan =
  | {
      readonly ok: true;
      readonly subject: string;
      /** The id the original carried as `Nats-Msg-Id`, so every consumer's dedup still holds. */
      readonly msgId: string;
      readonly headers: readonly (readonly [string, string])[];
      readonly data: Uint8Array;
    }
  | { readonly ok: false; readonly reason: string };

// Said about the copy, not the message: a replay must not carry them back to a consumer.
const COPY_HEADERS = new Set(Object.values(DLQ_HEADERS).map((h) => h.toLowerCase()));

/**
 * A copy is replayed only as the exact message it was: its payload must parse as a command
 * or output of this prefix, for the subject it was read from. Its id is then the msg id the
 * original was published with (bindings publish a command under its id, the session-service
 * an output under its id), so JetStream's duplicate window and each consumer's durable
 * dedup treat the replay as the same message. A cut copy or a payload that does not parse
 * could only be refused again, or worse be taken for something it was not.
 */
export function planReplay(letter: DeadLetter, subjects: Subjects): ReplayPlan {
  if (letter.truncatedFrom !== undefined) {
    return refuse(
      `truncated: the copy keeps ${letter.data.length} of the original's ${letter.truncatedFrom} bytes (${DLQ_HEADERS.truncatedFrom})`,
    );
  }
  const subject = letter.originalSubject;
  if (subject === undefined) return refuse(`no ${DLQ_HEADERS.originalSubject} header`);
  const parsed = subject.startsWith(`${subjects.prefix}.cmd.`)
    ? parseCommandForSubject(subjects, subject, letter.data)
    : subject.startsWith(`${subjects.prefix}.out.`)
      ? parseOutputForSubject(subjects, subject, letter.data)
      : undefined;
  if (parsed === undefined) {
    return refuse(
      `original subject ${JSON.stringify(subject)} is neither a command nor an output of prefix ${subjects.prefix}`,
    );
  }
  if (!parsed.ok) {
    return refuse(`payload does not parse for ${subject}: ${parsed.reason}: ${parsed.detail}`);
  }
  return {
    ok: true,
    subject,
    msgId: parsed.value.id,
    headers: letter.headers.filter(
      ([key]) => !COPY_HEADERS.has(key.toLowerCase()) && !key.toLowerCase().startsWith('nats-'),
    ),
    data: letter.data,
  };
}

function refuse(reason: string): ReplayPlan {
  return { ok: false, reason };
}
