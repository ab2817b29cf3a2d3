import {
  bindingConsumer,
  DLQ_HEADERS,
  parseCommandForSubject,
  parseOutputForSubject,
  PLATFORMS,
  sessionServiceConsumer,
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
  const confined = confinement(letter, subjects);
  if (!confined.ok) return confined;
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

/**
 * `Tollgate-Original-Subject` is written by whoever dead-lettered the message, so it is only a
 * claim. What is known is where the copy was stored: `<prefix>.dlq.<service>`, a subject only
 * that service's NATS user may publish. A copy is replayed only onto what that service itself
 * consumes (its durable's filter): a binding's onto its own platform's outputs, the
 * session-service's onto commands. Otherwise a compromised slack-binding could plant Discord
 * commands in its own DLQ and have the operator publish them.
 */
export function replayableFilter(service: string, subjects: Subjects): string | undefined {
  const consumers = [
    sessionServiceConsumer(subjects.prefix),
    ...PLATFORMS.map((platform) => bindingConsumer(subjects.prefix, platform)),
  ];
  return consumers.find((consumer) => consumer.durable === service)?.filterSubject;
}

function confinement(letter: DeadLetter, subjects: Subjects): ReplayPlan | { ok: true } {
  const dlqPrefix = `${subjects.prefix}.dlq.`;
  const storedBy = letter.subject.startsWith(dlqPrefix)
    ? letter.subject.slice(dlqPrefix.length)
    : undefined;
  const filter = storedBy === undefined ? undefined : replayableFilter(storedBy, subjects);
  if (storedBy === undefined || filter === undefined) {
    return refuse(
      `written on ${letter.subject}, not the dead-letter subject of a service whose input the operator may replay`,
    );
  }
  if (letter.service !== undefined && letter.service !== storedBy) {
    return refuse(
      `${DLQ_HEADERS.service} says ${JSON.stringify(letter.service)} but ${storedBy} wrote it (${letter.subject})`,
    );
  }
  const subject = letter.originalSubject ?? '';
  if (!matchesFilter(subject, filter)) {
    return refuse(
      `original subject ${JSON.stringify(subject)} is not what ${storedBy} consumes (${filter}); a service's dead letters replay only onto its own input`,
    );
  }
  return { ok: true };
}

/** A subject against a durable's filter, which ends in `>` or names the subject exactly. */
function matchesFilter(subject: string, filter: string): boolean {
  if (!filter.endsWith('.>')) return subject === filter;
  const stem = filter.slice(0, -1);
  return subject.startsWith(stem) && subject.length > stem.length;
}

function refuse(reason: string): ReplayPlan {
  return { ok: false, reason };
}
