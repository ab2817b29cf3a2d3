import type { MsgHdrs } from '@nats-io/nats-core';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { streamNames } from '@tollgate/protocol';
import { CliFailure } from '../cli-command';
import type { OperatorNats } from '../operator-nats';
import { type DeadLetter, deadLetterOf, type ReplayRecord, replayRecordOf } from './dead-letter';

interface Stored {
  readonly seq: number;
  readonly time: Date;
  readonly subject: string;
  readonly header?: MsgHdrs;
  readonly data: Uint8Array;
}

/** The outcome of publishing a replay: stored anew, or turned away as a duplicate. */
export type ReplayPublished =
  | { readonly kind: 'stored'; readonly stream: string; readonly streamSeq: number }
  | { readonly kind: 'duplicate'; readonly stream: string; readonly streamSeq: number };

/**
 * `<PREFIX>_DLQ` read message by message through `$JS.API.STREAM.MSG.GET` (the operator role
 * may create no consumer on it), and the replay markers kept beside the copies on
 * `<prefix>.dlq.replayed.<seq>`.
 */
export class DeadLetterStore {
  readonly stream: string;

  constructor(private readonly nats: OperatorNats) {
    this.stream = streamNames(nats.subjects.prefix).deadLetters;
  }

  /** Every copy, oldest first, each with its replay record if it was replayed. */
  async list(): Promise<{ letter: DeadLetter; replayed: ReplayRecord | undefined }[]> {
    const { first, last } = await this.range();
    const letters: DeadLetter[] = [];
    const replays = new Map<number, ReplayRecord>();
    for (let seq = first; seq <= last && last > 0; seq += 1) {
      const stored = await this.read(seq);
      if (stored === undefined) continue;
      if (this.isMarker(stored.subject)) {
        const record = this.markerOf(stored);
        if (record !== undefined && !replays.has(record.dlqSeq)) replays.set(record.dlqSeq, record);
      } else {
        letters.push(deadLetterOf(toPlain(stored)));
      }
    }
    return letters.map((letter) => ({ letter, replayed: replays.get(letter.seq) }));
  }

  /** The copy at `seq`; undefined when there is none (never was, aged out) or it is a marker. */
  async get(seq: number): Promise<DeadLetter | 'marker' | undefined> {
    await this.range();
    const stored = await this.read(seq);
    if (stored === undefined) return undefined;
    if (this.isMarker(stored.subject)) return 'marker';
    return deadLetterOf(toPlain(stored));
  }

  async replayOf(seq: number): Promise<ReplayRecord | undefined> {
    const stored = await this.request(() =>
      this.nats.jsm.streams.getMessage(this.stream, {
        last_by_subj: this.nats.subjects.dlqReplayMarker(seq),
      }),
    );
    return stored ? this.markerOf(stored) : undefined;
  }

  /**
   * A marker counts only on its own subject, `<prefix>.dlq.replayed.<seq>`, which only the
   * operator's NATS user may publish (no service can mark a copy replayed, nor un-mark one),
   * and only for the sequence that subject names.
   */
  private markerOf(stored: { subject: string; data: Uint8Array }): ReplayRecord | undefined {
    const marked = Number(
      stored.subject.slice(`${this.nats.subjects.prefix}.dlq.replayed.`.length),
    );
    const record = replayRecordOf(new TextDecoder().decode(stored.data));
    return record !== undefined && record.dlqSeq === marked ? record : undefined;
  }

  async publish(
    subject: string,
    data: Uint8Array,
    msgId: string,
    headers: readonly (readonly [string, string])[],
  ): Promise<ReplayPublished> {
    const h = natsHeaders();
    for (const [key, value] of headers) h.set(key, value);
    const ack = await this.request(() =>
      this.nats.js.publish(subject, data, { msgID: msgId, headers: h, timeout: 10_000 }),
    );
    return { kind: ack.duplicate ? 'duplicate' : 'stored', stream: ack.stream, streamSeq: ack.seq };
  }

  /**
   * Writes the marker only if none is there yet (`Nats-Expected-Last-Subject-Sequence: 0`),
   * so two replays racing leave one record. False: another replay recorded first.
   */
  async record(record: ReplayRecord): Promise<boolean> {
    try {
      await this.nats.js.publish(
        this.nats.subjects.dlqReplayMarker(record.dlqSeq),
        new TextEncoder().encode(JSON.stringify(record)),
        { expect: { lastSubjectSequence: 0 }, timeout: 10_000 },
      );
      return true;
    } catch (error) {
      if (/wrong last sequence/i.test(messageOf(error))) return false;
      throw new CliFailure(
        `replayed ${record.dlqSeq} to ${record.subject}, but could not record it, so a second replay ` +
          `would publish it again (consumers drop it by its id): ${messageOf(error)}`,
      );
    }
  }

  private async range(): Promise<{ first: number; last: number }> {
    const info = await this.request(() => this.nats.jsm.streams.info(this.stream)).catch(
      (error: unknown) => {
        if (/stream not found/i.test(messageOf(error))) {
          throw new CliFailure(
            `stream ${this.stream} does not exist: check TOLLGATE_SUBJECT_PREFIX, or run \`npm run provision\``,
          );
        }
        throw error;
      },
    );
    return { first: info.state.first_seq, last: info.state.last_seq };
  }

  private async read(seq: number): Promise<Stored | undefined> {
    const stored = await this.request(() => this.nats.jsm.streams.getMessage(this.stream, { seq }));
    return stored ?? undefined;
  }

  private isMarker(subject: string): boolean {
    return subject.startsWith(`${this.nats.subjects.prefix}.dlq.replayed.`);
  }

  private async request<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof CliFailure) throw error;
      throw new CliFailure(`NATS: ${messageOf(error)}`);
    }
  }
}

function toPlain(stored: Stored): Parameters<typeof deadLetterOf>[0] {
  const headers: [string, string][] = [];
  for (const [key, values] of stored.header ?? []) {
    const last = values[values.length - 1];
    if (last !== undefined) headers.push([key, last]);
  }
  return {
    seq: stored.seq,
    time: stored.time,
    subject: stored.subject,
    headers,
    data: stored.data,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
