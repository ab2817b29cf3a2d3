import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { setTracingEnabled, tracingEnabled } from './tracing-switch';

export interface Telemetry {
  /** Exports what is still buffered, then stops; the process traces nothing after it. */
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  /** Where spans go instead of OTLP (a test's in-memory exporter); starts without the env. */
  readonly spanProcessors?: SpanProcessor[];
}

/**
 * Starts the OpenTelemetry SDK for `service` (its `service.name`) when
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, exporting over
 * OTLP/HTTP (unless OTEL_SDK_DISABLED=true); otherwise loads nothing and returns undefined,
 * leaving the API's no-op tracer.
 * The SDK is imported only here, so a process without the endpoint never loads it.
 */
export async function startTelemetry(
  service: string,
  env: NodeJS.ProcessEnv,
  options: TelemetryOptions = {},
): Promise<Telemetry | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (options.spanProcessors === undefined && (endpoint === undefined || endpoint === '')) {
    return undefined;
  }
  // The SDK's own off switch: honoured before anything is loaded.
  if (options.spanProcessors === undefined && env.OTEL_SDK_DISABLED?.trim() === 'true') {
    return undefined;
  }
  if (tracingEnabled()) throw new Error('telemetry already started in this process');
  const [{ NodeSDK }, { W3CTraceContextPropagator }, { resourceFromAttributes }] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/core'),
      import('@opentelemetry/resources'),
    ]);
  const spanProcessors =
    options.spanProcessors ??
    (await otlpProcessors(env.OTEL_BSP_SCHEDULE_DELAY === undefined ? 1_000 : undefined));
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? service }),
    spanProcessors,
    textMapPropagator: new W3CTraceContextPropagator(),
    instrumentations: [],
    // Traces only: no log or metric pipeline (Prometheus has the metrics).
    logRecordProcessors: [],
  });
  sdk.start();
  setTracingEnabled(true);
  return {
    async shutdown() {
      setTracingEnabled(false);
      await sdk.shutdown();
    },
  };
}

/**
 * OTLP/HTTP with JSON bodies (the exporter's own encoding), batched. A turn's spans reach the
 * collector within a second unless OTEL_BSP_SCHEDULE_DELAY says otherwise.
 */
async function otlpProcessors(scheduledDelayMillis: number | undefined): Promise<SpanProcessor[]> {
  const [{ OTLPTraceExporter }, { BatchSpanProcessor }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/sdk-trace-base'),
  ]);
  return [
    new BatchSpanProcessor(
      new OTLPTraceExporter(),
      scheduledDelayMillis === undefined ? {} : { scheduledDelayMillis },
    ),
  ];
}
