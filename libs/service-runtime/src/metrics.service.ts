import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** One Prometheus registry per service, with process metrics and the shared message counters. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly messagesHandled: Counter<'stream' | 'outcome'>;
  readonly handlerSeconds: Histogram<'stream'>;
  readonly inboundRefused: Counter<'endpoint' | 'reason'>;

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
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
