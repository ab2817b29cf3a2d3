import { type DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import type { BaseConfig } from './base-config';
import { FatalFailures } from './fatal-failures';
import { HealthController } from './health.controller';
import { InboundRefusals } from './inbound-refusals.service';
import { MetricsService } from './metrics.service';
import { ReadinessService } from './readiness.service';
import { SERVICE_CONFIG, SERVICE_LOGGER } from './tokens';

/**
 * Config, logger, readiness, metrics, the health endpoints and the channel for fatal failures,
 * shared by every service.
 */
@Module({})
export class ServiceRuntimeModule {
  static forRoot(config: BaseConfig, logger: Logger): DynamicModule {
    return {
      module: ServiceRuntimeModule,
      global: true,
      controllers: [HealthController],
      providers: [
        ReadinessService,
        MetricsService,
        InboundRefusals,
        FatalFailures,
        { provide: SERVICE_CONFIG, useValue: config },
        { provide: SERVICE_LOGGER, useValue: logger },
      ],
      exports: [
        ReadinessService,
        MetricsService,
        InboundRefusals,
        FatalFailures,
        SERVICE_CONFIG,
        SERVICE_LOGGER,
      ],
    };
  }
}
