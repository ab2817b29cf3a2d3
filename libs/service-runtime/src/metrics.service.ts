import { Injectable } from '@nestjs/common';
import type { ConsumerProgress } from '@tollgate/messaging';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** One Prometheus registry per service, with process metrics and the shared message counters. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly messagesHandled: Counter<'stream' | 'outcome'>;
  readonly handlerSeconds: Histogram<'stream'>;
  readonly inboundRefused: Counter<'endpoint' | 'reason'>;
  readonly handlersAbandoned: Counter<'stream'>;
  private readonly consumers = new Map<string, () => ConsumerProgress>();
  private streams: readonly { stream: string; bytes: number; maxBytes: number }[] = [];

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'tollgate_' });
    this.messagesHandled = new Counter({
      name: 'tollgate_messages_handled_total',
      help: 'JetStream messages settled by this service, by outcome (acked, naked, dead_lettered)',
      labelNames: ['stream', 'outcome'],
      registers: [this.registry],
    });
    this.handlerSeconds = new Histogram({
      name: 'tollgate_handler_seconds',
      help: 'Time spent handling one JetStream message',
      labelNames: ['stream'],
      registers: [this.registry],
    });
    this.inboundRefused = new Counter({
      name: 'tollgate_inbound_refused_total',
      help: 'Inbound HTTP requests refused, by endpoint and reason (body, content type, signature, payload shape)',
      labelNames: ['endpoint', 'reason'],
      registers: [this.registry],
    });
    this.handlersAbandoned = new Counter({
      name: 'tollgate_handlers_abandoned_total',
      help: 'Handlers given up on after TOLLGATE_HANDLER_TIMEOUT_MS; their messages were naked for a retry',
      labelNames: ['stream'],
      registers: [this.registry],
    });
    const consumers = this.consumers;
    const perConsumer = (read: (p: ConsumerProgress) => number) =>
      function collect(this: Gauge<'durable'>): void {
        for (const [durable, progress] of consumers) this.set({ durable }, read(progress()));
      };
    new Gauge({
      name: 'tollgate_consumer_stalled',
      help: '1 while a durable has messages waiting and none acked or dead-lettered for longer than TOLLGATE_STALL_AFTER_MS',
      labelNames: ['durable'],
      registers: [this.registry],
      collect: perConsumer((p) => (p.stalled ? 1 : 0)),
    });
    new Gauge({
      name: 'tollgate_consumer_backlog',
      help: 'Messages available or ack-pending on a durable (naked ones waiting to be retried included)',
      labelNames: ['durable'],
      registers: [this.registry],
      collect: perConsumer((p) => p.backlog),
    });
    new Gauge({
      name: 'tollgate_consumer_seconds_since_progress',
      help: 'Seconds since a durable last acked or dead-lettered a message (or was seen empty)',
      labelNames: ['durable'],
      registers: [this.registry],
      collect: perConsumer((p) => p.msSinceProgress / 1_000),
    });
    const streamsNow = () => this.streams;
    const streamGauge = (read: (u: { bytes: number; maxBytes: number }) => number) =>
      function collect(this: Gauge<'stream'>): void {
        for (const usage of streamsNow()) this.set({ stream: usage.stream }, read(usage));
      };
    new Gauge({
      name: 'tollgate_stream_bytes',
      help: 'Bytes a JetStream stream holds, as last read (alert well before tollgate_stream_max_bytes)',
      labelNames: ['stream'],
      registers: [this.registry],
      collect: streamGauge((u) => u.bytes),
    });
    new Gauge({
      name: 'tollgate_stream_max_bytes',
      help: "A JetStream stream's size limit (TOLLGATE_STREAM_MAX_BYTES); at it, CMD, OUT and DECISION refuse new messages and the DLQ drops its oldest",
      labelNames: ['stream'],
      registers: [this.registry],
      collect: streamGauge((u) => u.maxBytes),
    });
  }

  /** The streams' sizes as last read (only a role that may read stream info reports any). */
  observeStreams(usage: readonly { stream: string; bytes: number; maxBytes: number }[]): void {
    this.streams = usage;
  }

  /** Reports a durable's progress as gauges, read at each scrape. */
  observeConsumer(durable: string, progress: () => ConsumerProgress): void {
    this.consumers.set(durable, progress);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
