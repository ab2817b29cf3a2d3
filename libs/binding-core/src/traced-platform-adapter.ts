import { inSpan, SpanKind, tracingEnabled } from '@tollgate/telemetry';
import type { PlatformAdapter } from './platform-adapter.port';

/** The adapter's calls that reach the platform's API. */
const PLATFORM_CALLS = [
  'postPrompt',
  'editPrompt',
  'sendNotice',
  'postText',
  'findPostedPrompt',
  'findPostedText',
] as const;

/**
 * The adapter with a client span around each platform API call, under the span of the
 * output being handled. With tracing off it is the adapter itself: the output path, whose
 * CPU per output is measured, pays nothing.
 */
export function tracedPlatformAdapter(adapter: PlatformAdapter): PlatformAdapter {
  if (!tracingEnabled()) return adapter;
  const traced = Object.create(adapter) as PlatformAdapter;
  const calls = adapter as unknown as Record<
    string,
    ((...args: unknown[]) => Promise<unknown>) | undefined
  >;
  for (const name of PLATFORM_CALLS) {
    const call = calls[name];
    if (call === undefined) continue;
    Object.defineProperty(traced, name, {
      value: (...args: unknown[]) =>
        inSpan(
          `platform ${name}`,
          { kind: SpanKind.CLIENT, attributes: { 'tollgate.platform': adapter.platform } },
          () => call.apply(adapter, args),
        ),
    });
  }
  return traced;
}
