import type { UpstreamPool } from '@tollgate/mcp-upstream';
import type { MetricsService } from '@tollgate/service-runtime';
import { Counter, Gauge } from 'prom-client';

/** The gateway's own series beside the shared process metrics. */
export class GatewayMetrics {
  readonly calls: Counter<'verdict' | 'outcome'>;
  readonly held: Gauge;
  readonly sessionsClosed: Counter<'why'>;
  readonly refusals: Counter<'reason'>;
  private liveSessions: () => { busy: number; idle: number } = () => ({ busy: 0, idle: 0 });

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
    this.sessionsClosed = new Counter({
      name: 'tollgate_mcp_sessions_closed_total',
      help: 'MCP sessions the gateway closed: idle past TOLLGATE_MCP_SESSION_IDLE_SECONDS, or evicted (idle) to make room under TOLLGATE_MCP_MAX_SESSIONS',
      labelNames: ['why'],
      registers: [metrics.registry],
    });
    this.refusals = new Counter({
      name: 'tollgate_mcp_refusals_total',
      help: 'Requests to /mcp refused before any tool ran, by reason (session_limit, duplicate_request_id, mcp_token_required, bad_mcp_token)',
      labelNames: ['reason'],
      registers: [metrics.registry],
    });
    const live = () => this.liveSessions();
    new Gauge({
      name: 'tollgate_mcp_sessions',
      help: 'Live MCP sessions over streamable HTTP: busy (an exchange open: a call, a GET stream) or idle',
      labelNames: ['state'],
      registers: [metrics.registry],
      collect() {
        const { busy, idle } = live();
        this.set({ state: 'busy' }, busy);
        this.set({ state: 'idle' }, idle);
      },
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

  /** The count the sessions gauge reports (the HTTP sessions exist only when serving HTTP). */
  countSessions(count: () => { busy: number; idle: number }): void {
    this.liveSessions = count;
  }
}
