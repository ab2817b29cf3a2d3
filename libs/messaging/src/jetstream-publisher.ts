import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/nats-core';
import { inSpan, injectTraceHeaders, SpanKind, tracingEnabled } from '@tollgate/telemetry';

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

  publish(
    subject: string,
    payload: Uint8Array | object,
    options: PublishOptions,
  ): Promise<PublishReceipt> {
    if (!tracingEnabled()) return this.send(subject, payload, options);
    // The span is the message's parent: its consumer continues the trace from the header.
    return inSpan(
      `publish ${subject}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'nats',
          'messaging.destination.name': subject,
          'messaging.message.id': options.msgId,
        },
      },
      () => {
        const headers = { ...options.headers };
        injectTraceHeaders(headers);
        return this.send(subject, payload, { ...options, headers });
      },
    );
  }

  private async send(
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
