import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { lastHeaderValues } from './delivered-message';
import { DLQ_HEADERS } from './definitions';
import { JetStreamPublisher } from './jetstream-publisher';

/**
 * Copies a message the runner gives up on to the DLQ (`<prefix>.dlq.<service>`), with the
 * reason, its original subject and the service that gave up, keyed by the original's stream
 * position so that a retried dead-lettering is stored once. Settling the original (term, or
 * nak when the copy did not go out) is the runner's.
 */
export class DeadLetterPublisher {
  private readonly publisher: JetStreamPublisher;

  constructor(
    js: JetStreamClient,
    private readonly options: {
      readonly stream: string;
      readonly service: string;
      readonly dlqSubject: string;
      /** The server's max_payload, so a copy is cut to fit instead of failing for ever. */
      readonly maxPayloadBytes?: () => number | undefined;
    },
  ) {
    this.publisher = new JetStreamPublisher(js);
  }

  /** Publishes the copy; throws when it did not go out within `timeoutMs`. */
  async publish(msg: JsMsg, reason: string, timeoutMs: number): Promise<void> {
    const { stream, service, dlqSubject } = this.options;
    const msgId = `${stream}:${msg.info.streamSequence}`;
    const copy = fitToMaxPayload(
      msg.data,
      {
        ...copyableHeaders(msg),
        [DLQ_HEADERS.reason]: reason,
        [DLQ_HEADERS.originalSubject]: msg.subject,
        [DLQ_HEADERS.service]: service,
      },
      { stream, seq: msg.info.streamSequence, msgId },
      this.options.maxPayloadBytes?.(),
    );
    await this.publisher.publish(dlqSubject, copy.data, {
      timeoutMs,
      msgId,
      headers: copy.headers,
    });
  }
}

/** Nats-* headers steer publishing (dedupe, expectations) and must not follow the copy. */
function copyableHeaders(msg: JsMsg): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [key, value] of lastHeaderValues(msg)) {
    if (!key.toLowerCase().startsWith('nats-')) copy[key] = value;
  }
  return copy;
}

/** Room kept for what the client or server adds to a header block beyond our own lines. */
const HEADER_SLACK_BYTES = 128;

/**
 * The server refuses a message whose headers and payload together exceed max_payload. A
 * message that only just fitted before gets three more headers as a dead letter, so its copy
 * could never be published, and it was retried for days. Such a copy keeps as much of the
 * payload as fits and says so, with the original size and position.
 */
export function fitToMaxPayload(
  data: Uint8Array,
  headers: Record<string, string>,
  origin: { stream: string; seq: number; msgId: string },
  maxPayloadBytes: number | undefined,
): { data: Uint8Array; headers: Record<string, string> } {
  if (maxPayloadBytes === undefined || maxPayloadBytes <= 0) return { data, headers };
  const idLine = { 'Nats-Msg-Id': origin.msgId };
  if (headerBytes({ ...headers, ...idLine }) + data.length <= maxPayloadBytes) {
    return { data, headers };
  }
  const marked: Record<string, string> = {
    ...headers,
    [DLQ_HEADERS.truncatedFrom]: String(data.length),
    [DLQ_HEADERS.originalStream]: origin.stream,
    [DLQ_HEADERS.originalSeq]: String(origin.seq),
  };
  let room = maxPayloadBytes - headerBytes({ ...marked, ...idLine });
  if (room < 0) {
    // The original's own headers are what does not fit: keep only ours.
    for (const key of Object.keys(marked)) {
      if (!Object.values(DLQ_HEADERS).includes(key as never)) delete marked[key];
    }
    room = maxPayloadBytes - headerBytes({ ...marked, ...idLine });
  }
  return { data: data.subarray(0, Math.max(0, room)), headers: marked };
}

function headerBytes(headers: Record<string, string>): number {
  const encoder = new TextEncoder();
  let total = 'NATS/1.0\r\n\r\n'.length + HEADER_SLACK_BYTES;
  for (const [key, value] of Object.entries(headers)) {
    total += encoder.encode(`${key}: ${value}\r\n`).length;
  }
  return total;
}
