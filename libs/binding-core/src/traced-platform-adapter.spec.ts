import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTelemetry, type Telemetry } from '@tollgate/telemetry';
import type { PlatformAdapter } from './platform-adapter.port';
import { tracedPlatformAdapter } from './traced-platform-adapter';

/** An adapter whose calls need `this`, as the real ones (SDK clients on the instance) do. */
class CountingAdapter {
  readonly platform = 'slack' as const;
  calls = 0;
  async postText(): Promise<{ channelId: string; messageId: string }> {
    this.calls += 1;
    return { channelId: 'C1', messageId: String(this.calls) };
  }
  async editPrompt(): Promise<void> {
    throw new Error('platform said no');
  }
  classifyFailure() {
    return { kind: 'permanent', reason: 'test' } as const;
  }
}

describe('tracedPlatformAdapter', () => {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor(exporter);
  let telemetry: Telemetry | undefined;

  afterAll(async () => {
    await telemetry?.shutdown();
  });

  it('D7 is the adapter itself while tracing is off, so the output path pays nothing', () => {
    const adapter = new CountingAdapter() as unknown as PlatformAdapter;
    expect(tracedPlatformAdapter(adapter)).toBe(adapter);
  });

  it('D7 spans each platform call as a client span, keeping the adapter’s own this, and marks a failed call', async () => {
    telemetry = await startTelemetry(
      'test',
      {},
      { spanProcessors: [new SimpleSpanProcessor(exporter)] },
    );
    const counting = new CountingAdapter();
    const traced = tracedPlatformAdapter(counting as unknown as PlatformAdapter);
    expect(traced).not.toBe(counting);
    await traced.postText({} as never, 'hi', 'reply' as never, 'out-1');
    await expect(traced.editPrompt({} as never, {} as never, {} as never)).rejects.toThrow('no');
    expect(counting.calls).toBe(1);
    expect(traced.classifyFailure(new Error('x'))).toEqual({ kind: 'permanent', reason: 'test' });
    expect(traced.platform).toBe('slack');
    expect('findPostedPrompt' in traced).toBe(false);

    // Exports wait for the resource's detected attributes; a flush waits for them.
    await processor.forceFlush();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual(['platform editPrompt', 'platform postText']);
    expect(spans.every((s) => s.attributes['tollgate.platform'] === 'slack')).toBe(true);
    expect(spans.find((s) => s.name === 'platform editPrompt')!.status.code).toBe(2);
  });
});
