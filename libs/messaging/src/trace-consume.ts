import { extractTraceContext, inSpan, SpanKind, tracingEnabled } from '@tollgate/telemetry';
import type { DeliveredMessage } from './delivered-message';

/**
 * Handles one delivery inside a `consume` span whose parent is the trace context its
 * publisher put in the headers, so the handler's own spans and publishes join that trace.
 * With tracing off it is the handler's call and nothing more.
 */
export function traceConsume(
  message: DeliveredMessage,
  durable: string,
  handler: (message: DeliveredMessage) => Promise<void>,
): Promise<void> {
  if (!tracingEnabled()) return handler(message);
  return inSpan(
    `consume ${message.subject}`,
    {
      kind: SpanKind.CONSUMER,
      parent: extractTraceContext(message.headers),
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': message.subject,
        'messaging.consumer.group.name': durable,
        'messaging.nats.delivery_count': message.deliveryCount,
        'messaging.nats.stream_sequence': message.streamSeq,
      },
    },
    () => handler(message),
  );
}
