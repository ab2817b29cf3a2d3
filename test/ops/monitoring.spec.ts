import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startJourneySystem, type JourneySystem } from '../support/journey-system.fixture';
import {
  dashboardProblems,
  type Dashboard,
  exposedMetrics,
  ruleProblems,
  type RulesFile,
} from './monitoring.checks';

const root = join(__dirname, '..', '..');
const RULES = 'ops/prometheus/tollgate-alerts.yml';
const DASHBOARD = 'ops/grafana/tollgate-dashboard.json';
const rules = () => parse(readFileSync(join(root, RULES), 'utf8')) as RulesFile;
const dashboard = () => JSON.parse(readFileSync(join(root, DASHBOARD), 'utf8')) as Dashboard;

/**
 * (process) The alert rules and the Grafana dashboard in ops/ read only metrics the services
 * really expose: the session service's and a binding's /metrics, scraped from the built
 * services as Prometheus would (from this host, no token set).
 */
describe('D7 alert rules and dashboard', () => {
  let system: JourneySystem | undefined;
  let known: Set<string>;

  beforeAll(async () => {
    system = await startJourneySystem('slack', 'mon');
    const pages = await Promise.all(
      [system.session.process!.url('/metrics'), `${system.binding.url}/metrics`].map(
        async (url) => {
          const response = await fetch(url);
          expect(response.status).toBe(200);
          return response.text();
        },
      ),
    );
    known = new Set(pages.flatMap((page) => [...exposedMetrics(page)]));
  });

  afterAll(async () => {
    await system?.dispose();
  });

  it('D7 every rule (consumer stalled, DLQ growing, prompts pending, stream near its limit) reads registered metrics, with a severity and a summary', () => {
    const file = rules();
    expect(ruleProblems(file, known)).toEqual([]);
    const names = (file.groups ?? []).flatMap((g) => (g.rules ?? []).map((r) => r.alert));
    expect(names).toEqual(
      expect.arrayContaining([
        'TollgateConsumerStalled',
        'TollgateDeadLettersGrowing',
        'TollgatePromptsPendingTooLong',
        'TollgateStreamNearLimit',
      ]),
    );
  });

  it('D7 every dashboard panel has a Prometheus data source and queries registered metrics', () => {
    expect(dashboardProblems(dashboard(), known)).toEqual([]);
  });

  it('D7 the checks would catch a misspelt metric, a rule without severity, a panel without a source', () => {
    const file = rules();
    const first = file.groups![0].rules![0];
    first.expr = 'tollgate_consumer_stall == 1';
    delete first.labels;
    expect(ruleProblems(file, known)).toEqual([
      'TollgateConsumerStalled: tollgate_consumer_stall is not a metric the services register',
      'TollgateConsumerStalled: severity is not page or ticket',
    ]);
    const board = dashboard();
    const panel = board.panels![0];
    delete panel.datasource;
    panel.targets = [{ expr: 'rate(tollgate_messages_total[5m])' }];
    expect(dashboardProblems(board, known)).toEqual([
      `${panel.title}: no Prometheus data source`,
      `${panel.title}: tollgate_messages_total is not a metric the services register`,
    ]);
  });
});
