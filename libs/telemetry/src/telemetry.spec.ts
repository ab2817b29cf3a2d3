import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { carriedContext, carryContext } from './carried-context';
import { inSpan } from './spans';
import { startTelemetry, type Telemetry } from './start-telemetry';
import {
  contextOfTraceparent,
  currentTraceparent,
  extractTraceContext,
  injectTraceHeaders,
} from './trace-headers';
import { tracingEnabled } from './tracing-switch';

describe('telemetry', () => {
  const exporter = new InMemorySpanExporter();
  let telemetry: Telemetry | undefined;

  afterAll(async () => {
    await telemetry?.shutdown();
  });

  it('D7 stays off without an OTLP endpoint: no SDK, no span, no header', async () => {
    expect(await startTelemetry('test', {})).toBeUndefined();
    expect(await startTelemetry('test', { OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBeUndefined();
    expect(
      await startTelemetry('test', {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        OTEL_SDK_DISABLED: 'true',
      }),
    ).toBeUndefined();
    expect(tracingEnabled()).toBe(false);
    const seen: unknown[] = [];
    await inSpan('off', {}, async (span) => void seen.push(span));
    expect(seen).toEqual([undefined]);
    const headers: Record<string, string> = {};
    injectTraceHeaders(headers);
    expect(headers).toEqual({});
    expect(currentTraceparent()).toBeNull();
    const item = {};
    carryContext(item);
    expect(carriedContext(item)).toBeUndefined();
  });

  it('D7 carries one trace through message headers and a stored traceparent', async () => {
    telemetry = await startTelemetry(
      'test',
      {},
      { spanProcessors: [new SimpleSpanProcessor(exporter)] },
    );
    expect(tracingEnabled()).toBe(true);

    const headers: Record<string, string> = {};
    let stored: string | null = null;
    await inSpan('publish', {}, async () => {
      injectTraceHeaders(headers);
      stored = currentTraceparent();
    });
    expect(headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(stored).toBe(headers.traceparent);

    // NATS keeps the publisher's case of a header name.
    const delivered = new Map([['Traceparent', headers.traceparent]]);
    await inSpan('consume', { parent: extractTraceContext(delivered) }, async () => {
      const item = {};
      carryContext(item);
      await inSpan('later', { parent: carriedContext(item) }, async () => undefined);
    });
    await inSpan('relay', { parent: contextOfTraceparent(stored) }, async () => undefined);
    await expect(
      inSpan('fails', {}, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');

    const spans = exporter.getFinishedSpans();
    const byName = new Map(spans.map((s) => [s.name, s]));
    const publish = byName.get('publish')!;
    const traceId = publish.spanContext().traceId;
    for (const name of ['consume', 'later', 'relay']) {
      expect(byName.get(name)!.spanContext().traceId).toBe(traceId);
    }
    expect(byName.get('consume')!.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    expect(byName.get('later')!.parentSpanContext?.spanId).toBe(
      byName.get('consume')!.spanContext().spanId,
    );
    expect(byName.get('fails')!.spanContext().traceId).not.toBe(traceId);
    expect(byName.get('fails')!.status.code).toBe(2);
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});
