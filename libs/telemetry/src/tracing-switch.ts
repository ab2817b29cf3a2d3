/**
 * Whether this process exports traces. Read on every hot path before anything else is done
 * for tracing, so a process without an OTLP endpoint pays one boolean check per message and
 * allocates nothing: not even the API's no-op spans.
 */
let enabled = false;

export function tracingEnabled(): boolean {
  return enabled;
}

/** @internal Set by startTelemetry once an SDK is registered, and back by its shutdown. */
export function setTracingEnabled(on: boolean): void {
  enabled = on;
}
