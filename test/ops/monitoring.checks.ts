// Checks of the alert rules and the dashboard shipped in ops/: each returns every problem it
// finds, as text naming the rule or panel, so one failing run shows the whole drift.

export interface AlertRule {
  alert?: string;
  expr?: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface RulesFile {
  groups?: { name?: string; rules?: AlertRule[] }[];
}

interface Target {
  expr?: string;
  datasource?: { type?: string; uid?: string };
}

export interface Dashboard {
  title?: string;
  panels?: {
    title?: string;
    type?: string;
    datasource?: { type?: string; uid?: string };
    targets?: Target[];
  }[];
}

const METRIC = /\btollgate_[a-z0-9_]+\b/g;

/** Every `tollgate_*` metric name an expression reads. */
export function metricsOf(expr: string): string[] {
  return [...new Set(expr.match(METRIC) ?? [])];
}

/**
 * The metric names a /metrics page exposes: each `# TYPE` family, and for a histogram or a
 * summary the series Prometheus stores for it (`_bucket`, `_sum`, `_count`).
 */
export function exposedMetrics(page: string): Set<string> {
  const names = new Set<string>();
  for (const match of page.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = match;
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}

/** Rules that cannot fire as written, or that page nobody with a reason. */
export function ruleProblems(file: RulesFile, known: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const rules = (file.groups ?? []).flatMap((g) => g.rules ?? []);
  if (rules.length === 0) problems.push('rules: no alert rules');
  const names = new Set<string>();
  for (const rule of rules) {
    const name = rule.alert ?? '(unnamed)';
    if (rule.alert === undefined) problems.push('rules: a rule without an alert name');
    else if (names.has(name)) problems.push(`${name}: named twice`);
    names.add(name);
    if (!rule.expr?.trim()) problems.push(`${name}: no expr`);
    const used = metricsOf(rule.expr ?? '');
    if (rule.expr && used.length === 0) problems.push(`${name}: reads no tollgate_ metric`);
    for (const metric of used) {
      if (!known.has(metric))
        problems.push(`${name}: ${metric} is not a metric the services register`);
    }
    if (!['page', 'ticket'].includes(rule.labels?.severity ?? '')) {
      problems.push(`${name}: severity is not page or ticket`);
    }
    if (!rule.annotations?.summary) problems.push(`${name}: no summary`);
    if (rule.for !== undefined && !/^\d+[smh]$/.test(rule.for)) {
      problems.push(`${name}: for is not a duration`);
    }
  }
  return problems;
}

/** Panels that would show nothing: no data source, no query, or a metric nobody exposes. */
export function dashboardProblems(dashboard: Dashboard, known: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const panels = dashboard.panels ?? [];
  if (panels.length === 0) problems.push('dashboard: no panels');
  for (const panel of panels) {
    const name = panel.title ?? '(untitled)';
    if (panel.datasource?.type !== 'prometheus' || !panel.datasource.uid) {
      problems.push(`${name}: no Prometheus data source`);
    }
    const targets = panel.targets ?? [];
    if (targets.length === 0) problems.push(`${name}: no query`);
    for (const target of targets) {
      if (!target.expr?.trim()) problems.push(`${name}: a query without expr`);
      for (const metric of metricsOf(target.expr ?? '')) {
        if (!known.has(metric)) {
          problems.push(`${name}: ${metric} is not a metric the services register`);
        }
      }
    }
  }
  return problems;
}
