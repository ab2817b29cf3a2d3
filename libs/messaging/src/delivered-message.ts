import type { JsMsg } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/nats-core';

/** What a handler sees of one JetStream delivery; settling it is the runner's job. */
export interface DeliveredMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  /** The last value of each header, keys as published. */
  readonly headers: ReadonlyMap<string, string>;
  /** 1 on the first delivery. */
  readonly deliveryCount: number;
  readonly streamSeq: number;
  /** Restarts the consumer's ack_wait; the runner also does this while the handler runs. */
  working(): void;
  /**
   * For a wait on something no other message needs (a platform's rate-limit bucket, an
   * earlier message of the same session): until `waiting` settles, the handler's slot and its
   * place among the held messages are free for other work. The message stays held and alive.
   * Absent where nothing runs the handler that could use the slot (a test calling it directly).
   */
  readonly park?: <T>(waiting: Promise<T>) => Promise<T>;
}

export function toDeliveredMessage(
  msg: JsMsg,
  working: () => void,
  park?: <T>(waiting: Promise<T>) => Promise<T>,
): DeliveredMessage {
  return new Delivery(msg, working, park);
}

/**
 * A class, not an object literal with a getter: a literal with an accessor is given a new
 * hidden class on every delivery (V8 defines the accessor at run time), which perf showed as a
 * measurable share of a binding's CPU per output (D6).
 */
class Delivery implements DeliveredMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly deliveryCount: number;
  readonly streamSeq: number;
  // Decoded when first read: most handlers never look, and decoding a header block on every
  // delivery was a measurable share of a binding's CPU per output (D6).
  private decodedHeaders: Map<string, string> | undefined;

  constructor(
    private readonly msg: JsMsg,
    readonly working: () => void,
    readonly park: (<T>(waiting: Promise<T>) => Promise<T>) | undefined,
  ) {
    this.subject = msg.subject;
    this.data = msg.data;
    const { deliveryCount, streamSequence } = msg.info;
    this.deliveryCount = deliveryCount;
    this.streamSeq = streamSequence;
  }

  get headers(): ReadonlyMap<string, string> {
    return (this.decodedHeaders ??= lastHeaderValues(this.msg));
  }
}

/** The last value of each header of a delivery, keys as published. */
export function lastHeaderValues(msg: JsMsg): Map<string, string> {
  // Typed through the client's `internal` entry point, which this tsconfig cannot resolve.
  const headers = msg.headers as MsgHdrs | undefined;
  const values = new Map<string, string>();
  for (const [key, all] of headers ?? []) {
    const last = all[all.length - 1];
    if (last !== undefined) values.set(key, last);
  }
  return values;
}
