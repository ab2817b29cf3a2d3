import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { MetricsService } from './metrics.service';
import { SERVICE_LOGGER } from './tokens';

/**
 * The one place an inbound HTTP refusal is recorded: counted in
 * `tollgate_inbound_refused_total{endpoint,reason}` and logged at a level that matches who
 * could have sent it. `endpoint` must be a route name from code, never a path taken from the
 * request, so strangers cannot grow the metric's label set.
 */
@Injectable()
export class InboundRefusals {
  constructor(
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * Refused before the sender proved who it is (body, content type, signature, token). Anyone
   * can send these, as fast as they like, so they are only counted and logged at debug: at a
   * higher level they would let a stranger flood the log.
   */
  unauthenticated(endpoint: string, reason: string, details: Record<string, unknown> = {}): void {
    this.metrics.inboundRefused.inc({ endpoint, reason });
    this.logger.debug({ endpoint, reason, ...details }, 'refused an unauthenticated request');
  }

  /**
   * Refused after the platform's signature or token checked out: the platform itself sent
   * something Tollgate cannot read, which an operator should hear about.
   */
  authenticated(endpoint: string, reason: string, details: Record<string, unknown> = {}): void {
    this.metrics.inboundRefused.inc({ endpoint, reason });
    this.logger.warn({ endpoint, reason, ...details }, 'refused a signed request');
  }
}
