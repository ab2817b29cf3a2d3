import {
  context,
  type Context,
  propagation,
  ROOT_CONTEXT,
  type TextMapGetter,
} from '@opentelemetry/api';
import { tracingEnabled } from './tracing-switch';

/** The W3C trace context headers (https://www.w3.org/TR/trace-context/). */
export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;

/**
 * Adds `traceparent` (and `tracestate`) of the active span to `headers`, for a NATS message
 * or an HTTP call. Does nothing when tracing is off or no span is active.
 */
export function injectTraceHeaders(
  headers: Record<string, string>,
  from: Context = context.active(),
): void {
  if (!tracingEnabled()) return;
  propagation.inject(from, headers);
}

const mapGetter: TextMapGetter<ReadonlyMap<string, string>> = {
  keys: (carrier) => [...carrier.keys()],
  get: (carrier, key) => carrier.get(key) ?? lowerCaseLookup(carrier, key),
};

/** NATS header names keep the publisher's case; the W3C names are lower case. */
function lowerCaseLookup(carrier: ReadonlyMap<string, string>, key: string): string | undefined {
  for (const [name, value] of carrier) if (name.toLowerCase() === key) return value;
  return undefined;
}

/**
 * The trace context a message's headers carry, as a parent for its consumer's span; the root
 * context (a new trace) when they carry none or tracing is off.
 */
export function extractTraceContext(headers: ReadonlyMap<string, string>): Context {
  if (!tracingEnabled()) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, headers, mapGetter);
}

/** The active span's `traceparent`, to be stored with work that continues later (the outbox). */
export function currentTraceparent(from: Context = context.active()): string | null {
  if (!tracingEnabled()) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  return carrier.traceparent ?? null;
}

/**
 * Runs `work` as part of the trace a stored `traceparent` names (work queued in one place and
 * done later in another: the outbox); without one, or with tracing off, it just runs it.
 */
export function continueTrace<T>(traceparent: string | null | undefined, work: () => T): T {
  if (!tracingEnabled() || !traceparent) return work();
  return context.with(contextOfTraceparent(traceparent), work);
}

/** The context a stored `traceparent` names, to continue its trace; root when there is none. */
export function contextOfTraceparent(traceparent: string | null | undefined): Context {
  if (!tracingEnabled() || !traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}
