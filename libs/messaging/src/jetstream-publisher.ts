import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/nats-core';

export interface PublishOptions {
  /** Becomes `Nats-Msg-Id`: a repeat within the stream's duplicate window is stored once. */
  msgId: string;
  headers?: Readonly<Record<string, string>>;
  /** How long to wait for the stream's ack; the client's default applies when absent. */
  timeoutMs?: number;
}

export interface PublishReceipt {
  stream: string;
  seq: number;
  /** True when the stream already held a message with this msgId: nothing new was stored. */
  duplicate: boolean;
}

const encoder = new TextEncoder();

/** Publishes to JetStream and resolves only once the stream has stored the message. */
export class JetStreamPublisher {
  constructor(private readonly js: JetStreamClient) {}

  async publish(
    subject: string,
    payload: Uint8Array | object,
    options: PublishOptions,
  ): Promise<PublishReceipt> {
    const data = payload instanceof Uint8Array ? payload : encoder.encode(JSON.stringify(payload));
    const h = natsHeaders();
    for (const [key, value] of Object.entries(options.headers ?? {})) h.set(key, value);
    const ack = await this.js.publish(subject, data, {
      msgID: options.msgId,
      headers: h,
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    });
    return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
  }
}
