import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { BaseConfig } from './base-config';
import { MetricsAccess } from './metrics-access';
import { MetricsService } from './metrics.service';
import { ReadinessService } from './readiness.service';
import { SERVICE_CONFIG } from './tokens';

@Controller()
export class HealthController {
  private readonly metricsAccess: MetricsAccess;

  constructor(
    private readonly readiness: ReadinessService,
    private readonly metrics: MetricsService,
    @Inject(SERVICE_CONFIG) config: BaseConfig,
  ) {
    this.metricsAccess = new MetricsAccess(config.TOLLGATE_METRICS_TOKEN);
  }

  /** Alive as long as the event loop answers; restarts are for a wedged process only. */
  @Get('health/live')
  live(): { status: 'live' } {
    return { status: 'live' };
  }

  @Get('health/ready')
  async ready(@Res() res: Response): Promise<void> {
    const report = await this.readiness.report();
    res.status(report.ready ? 200 : 503).json({
      status: report.ready ? 'ready' : 'not_ready',
      checks: report.checks,
      ...report.details,
    });
  }

  @Get('metrics')
  async metricsText(@Req() req: Request, @Res() res: Response): Promise<void> {
    const refusal = this.metricsAccess.refusal(req.socket.remoteAddress, req.headers);
    if (refusal !== undefined) {
      res.status(refusal === 'bad_metrics_token' ? 403 : 401).json({ error: refusal });
      return;
    }
    const { contentType, body } = await this.metrics.render();
    res.setHeader('Content-Type', contentType);
    res.send(body);
  }
}
