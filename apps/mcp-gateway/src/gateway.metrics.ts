import type { UpstreamPool } from '@tollgate/mcp-upstream';
import type { MetricsService } from '@tollgate/service-runtime';
import { Counter, Gauge } from 'prom-client';

/** The gateway's own series beside the shared process metrics. */
export class GatewayMetrics {
  readonly calls: Counter<'verdict' | 'outcome'>;
  readonly held: Gauge;

  constructor(metrics: MetricsService, pool: UpstreamPool) {
    this.calls = new Counter({
      name: 'tollgate_mcp_calls_total',
      help: 'Tool calls answered by the gateway, by policy verdict and outcome (ok, error, refused)',
      labelNames: ['verdict', 'outcome'],
      registers: [metrics.registry],
    });
    this.held = new Gauge({
      name: 'tollgate_mcp_held_calls',
      help: 'Calls to ask tools waiting on an approval right now',
      registers: [metrics.registry],
    });
    new Gauge({
      name: 'tollgate_mcp_upstream_up',
      help: '1 while an upstream MCP server is connected and answering',
      labelNames: ['upstream'],
      registers: [metrics.registry],
      collect() {
        for (const [upstream, state] of Object.entries(pool.states())) {
          this.set({ upstream }, state.status === 'up' ? 1 : 0);
        }
      },
    });
  }
}
