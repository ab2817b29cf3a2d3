import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { DeliveredMessage } from '@tollgate/messaging';
import { inSpan, startTelemetry, type Telemetry } from '@tollgate/telemetry';
import { waitFor } from '../../support/wait-for';
import { MessagingScope } from './messaging-scope';

/** (integration) Real JetStream: the trace context rides in the headers of a publish. */
describe('D7 trace context through NATS', () => {
  const exporter = new InMemorySpanExporter();
  let telemetry: Telemetry | undefined;
  let scope: MessagingScope;

  beforeAll(async () => {
    telemetry = await startTelemetry(
      'messaging-test',
      {},
      { spanProcessors: [new SimpleSpanProcessor(exporter)] },
    );
    scope = await MessagingScope.open('msgtrace');
  });
  afterAll(async () => {
    await scope.close();
    await telemetry?.shutdown();
  });

  it('D7 a consumer’s span is the child of the publish span, and what it publishes stays in the trace', async () => {
    const scenario = await scope.provisioned();
    const seen: DeliveredMessage[] = [];
    const handlerTraces: string[] = [];
    await scope.runner(scenario, async (message) => {
      seen.push(message);
      handlerTraces.push(trace.getActiveSpan()?.spanContext().traceId ?? 'none');
      if (message.subject.endsWith('.first')) {
        await scope.publisher.publish(scenario.subject('s1.second'), { n: 2 }, { msgId: 'two' });
      }
    });

    await inSpan('user message', {}, () =>
      scope.publisher.publish(scenario.subject('s1.first'), { n: 1 }, { msgId: 'one' }),
    );
    await waitFor('both messages handled', () => seen.length === 2);
    const spans = await waitFor('the consume spans ended', () => {
      const finished = exporter.getFinishedSpans();
      return finished.filter((s) => s.name.startsWith('consume ')).length === 2 && finished;
    });

    const root = spans.find((s) => s.name === 'user message')!;
    const traceId = root.spanContext().traceId;
    expect(new Set(handlerTraces)).toEqual(new Set([traceId]));
    const named = (name: string) => spans.find((s) => s.name === name)!;
    const firstPublish = named(`publish ${scenario.subject('s1.first')}`);
    const firstConsume = named(`consume ${scenario.subject('s1.first')}`);
    const secondPublish = named(`publish ${scenario.subject('s1.second')}`);
    const secondConsume = named(`consume ${scenario.subject('s1.second')}`);
    expect(firstPublish.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(firstConsume.parentSpanContext?.spanId).toBe(firstPublish.spanContext().spanId);
    expect(secondPublish.parentSpanContext?.spanId).toBe(firstConsume.spanContext().spanId);
    expect(secondConsume.parentSpanContext?.spanId).toBe(secondPublish.spanContext().spanId);
    for (const span of [firstPublish, firstConsume, secondPublish, secondConsume]) {
      expect(span.spanContext().traceId).toBe(traceId);
    }
    expect(seen[0].headers.get('traceparent')).toContain(traceId);
    expect(firstConsume.attributes['messaging.consumer.group.name']).toBe('worker');
  });
});
