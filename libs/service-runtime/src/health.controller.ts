import { Controller, Get, Res } from '@nestjs/common';
import type { Response } from 'express';
import { MetricsService } from './metrics.service';
import { ReadinessService } from './readiness.service';

@Controller()
export class HealthController {
  constructor(
    private readonly readiness: ReadinessService,
    private readonly metrics: MetricsService,
  ) {}

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
  async metricsText(@Res() res: Response): Promise<void> {
    const { contentType, body } = await this.metrics.render();
    res.setHeader('Content-Type', contentType);
    res.send(body);
  }
}
