import {
  context,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
} from '@opentelemetry/api';
import { tracingEnabled } from './tracing-switch';

/** Every span of Tollgate comes from this one tracer, named after the product. */
export const TRACER_NAME = 'tollgate';

export interface SpanSpec {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  /** The parent; the active context when absent. */
  readonly parent?: Context;
}

/**
 * Runs `work` inside a span named `name`, made active for everything it awaits, ended when
 * it settles and marked as an error when it throws. With tracing off it only calls `work`.
 */
export function inSpan<T>(
  name: string,
  spec: SpanSpec,
  work: (span?: Span) => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return work();
  const tracer = trace.getTracer(TRACER_NAME);
  const parent = spec.parent ?? context.active();
  return tracer.startActiveSpan(
    name,
    {
      kind: spec.kind ?? SpanKind.INTERNAL,
      ...(spec.attributes ? { attributes: spec.attributes } : {}),
    },
    parent,
    async (span) => {
      try {
        return await work(span);
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: error instanceof Error ? error.message : String(error),
        });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

export { SpanKind };
