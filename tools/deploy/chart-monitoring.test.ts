// The chart's monitoring objects (monitoring.*, all off by default): a ServiceMonitor per scraped
// component, the PrometheusRule and the Grafana dashboard. Every expression parses with
// Prometheus's grammar, and every series and label it names is one the code registers (or, listed
// below, one of the NATS exporter's); with the toggles off the chart renders byte for byte what it
// renders without these templates.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredSeries, sourcesContainLiteral } from './code-metrics.js';
import { JOB_QUEUES, deployableServices, jobsTopology, portsOf } from './code-facts.js';
import {
  Helm,
  RELEASE,
  VALUE_SETS,
  chartDir,
  ensureHelm,
  get,
  nameOf,
  ofKind,
  parseManifests,
  type Manifest,
  type RenderOptions,
} from './helm.js';
import { validateManifest } from './kube-models.js';
import { parsePromql, substituteGrafanaVariables } from './promql.js';

const MONITORING_ON = {
  'monitoring.serviceMonitors.enabled': 'true',
  'monitoring.prometheusRule.enabled': 'true',
  'monitoring.grafanaDashboard.enabled': 'true',
};
const withMonitoring = (options: RenderOptions): RenderOptions => ({ ...options, set: { ...options.set, ...MONITORING_ON } });
const SET_NAMES = Object.keys(VALUE_SETS) as (keyof typeof VALUE_SETS)[];

/** The labels Prometheus gives every target a ServiceMonitor finds (the service label is dropped). */
const TARGET_LABELS = ['namespace', 'pod', 'job', 'instance', 'container', 'endpoint'];
/**
 * Series from exporters outside the code, with their labels: prometheus-nats-exporter's JetStream
 * consumer series (collector/jsz.go; -jsz=all, named with the NATS Helm chart's -prefix=nats).
 */
const EXTERNAL_SERIES: Record<string, string[]> = {
  nats_consumer_num_pending: [
    ...['server_id', 'server_name', 'cluster', 'domain', 'meta_leader', 'is_meta_leader'],
    ...['account', 'account_id', 'stream_name', 'stream_leader', 'is_stream_leader'],
    ...['consumer_name', 'consumer_leader', 'is_consumer_leader', 'consumer_desc', 'consumer_created'],
    ...TARGET_LABELS,
  ],
};

const codeSeries = registeredSeries();

/** What is wrong with an expression: syntax, series the code does not register, labels they lack. */
function expressionProblems(expr: string): string[] {
  const parsed = parsePromql(expr);
  const problems = [...parsed.errors];
  const labelsInPlay = new Set(TARGET_LABELS);
  for (const { metric, matchers } of parsed.selectors) {
    const internal = codeSeries.get(metric);
    const labels = internal ? new Set([...internal, ...TARGET_LABELS]) : new Set(EXTERNAL_SERIES[metric]);
    if (!internal && !EXTERNAL_SERIES[metric]) {
      problems.push(`${metric}: neither registered by the code nor a listed exporter series`);
      continue;
    }
    for (const label of labels) labelsInPlay.add(label);
    for (const { label, op, value } of matchers) {
      if (!labels.has(label)) problems.push(`${metric}: has no label ${label}`);
      // A value the code sets is a string literal in its sources ('dead', 'failed'); patterns and
      // the values of target labels (namespace) are left alone.
      const ownLabel = internal && !TARGET_LABELS.includes(label) && label !== 'service';
      const words = ownLabel && (op === '=' || op === '=~') ? value.split('|') : [];
      for (const word of words) {
        if (/^[a-z][a-z_]*$/.test(word) && !sourcesContainLiteral(word)) problems.push(`${metric}: ${label}="${word}" is set nowhere`);
      }
    }
  }
  for (const label of parsed.groupingLabels) if (!labelsInPlay.has(label)) problems.push(`groups by ${label}, which no series here has`);
  return problems;
}

let helm: Helm;
const on: Record<string, Manifest[]> = {};
beforeAll(() => {
  ensureHelm();
  helm = new Helm();
  for (const name of SET_NAMES) on[name] = helm.render(withMonitoring(VALUE_SETS[name]));
}, 180_000);
afterAll(() => helm?.dispose());

const ruleOf = (manifests: Manifest[]) => get(manifests, 'PrometheusRule', RELEASE);
const alertsOf = (manifests: Manifest[]): Manifest[] => ruleOf(manifests).spec.groups.flatMap((group: Manifest) => group.rules);
const dashboardOf = (manifests: Manifest[]) => get(manifests, 'ConfigMap', `${RELEASE}-dashboard`);
const dashboardJson = () => JSON.parse(readFileSync(path.join(chartDir, 'dashboards', 'atelier.json'), 'utf8'));
const dashboardExprs = (dashboard: Manifest): string[] =>
  dashboard.panels.flatMap((panel: Manifest) => panel.targets.map((target: Manifest) => substituteGrafanaVariables(target.expr)));

describe('chart monitoring - off by default', () => {
  it.each(SET_NAMES)('renders with the %s values exactly what the chart renders without the monitoring templates', (name) => {
    const bare = mkdtempSync(path.join(tmpdir(), 'atelier-chart-'));
    try {
      cpSync(chartDir, bare, { recursive: true });
      for (const file of [
        'templates/monitoring-servicemonitors.yaml',
        'templates/monitoring-prometheusrule.yaml',
        'templates/monitoring-dashboard.yaml',
        'templates/_monitoring.tpl',
        'dashboards',
      ]) {
        rmSync(path.join(bare, file), { recursive: true });
      }
      const args = helm.templateArgs(VALUE_SETS[name]);
      const withTemplates = helm.run(args);
      const without = helm.run(args.map((arg) => (arg === chartDir ? bare : arg)));
      expect(withTemplates.status).toBe(0);
      expect(without.status).toBe(0);
      expect(withTemplates.stdout).toBe(without.stdout);
      const kinds = parseManifests(withTemplates.stdout).map((manifest) => manifest.kind);
      expect(kinds).not.toContain('PrometheusRule');
      expect(kinds).not.toContain('ServiceMonitor');
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});

describe('chart monitoring - toggles on', () => {
  it.each(SET_NAMES)('passes helm lint --strict with the %s values', (name) => {
    const files = VALUE_SETS[name].valuesFiles ?? [];
    const sets = Object.entries(MONITORING_ON).flatMap(([key, value]) => ['--set', `${key}=${value}`]);
    const result = helm.run(['lint', '--strict', chartDir, ...files.flatMap((file) => ['--values', file]), ...sets]);
    expect(result.stderr + result.stdout).toContain('0 chart(s) failed');
    expect(result.status).toBe(0);
  });

  it.each(SET_NAMES)('renders only objects valid against their API models with the %s values', (name) => {
    const manifests = on[name] ?? [];
    expect(ofKind(manifests, 'PrometheusRule')).toHaveLength(1);
    expect(manifests.flatMap(validateManifest)).toEqual([]);
  });

  it('checks the prometheus-operator objects against the CRD models: a wrong type is caught', () => {
    const rule = structuredClone(ruleOf(on.default ?? []));
    rule.spec.groups[0].rules[0].for = 5;
    expect(validateManifest(rule).join()).toMatch(/for must be string/);
    const monitor = structuredClone(get(on.default ?? [], 'ServiceMonitor', nameOf('jobs')));
    monitor.spec.endpoints[0].relabelings[0].action = 'forget';
    expect(validateManifest(monitor).join()).toMatch(/action must be equal to one of the allowed values/);
  });
});

describe('chart monitoring - ServiceMonitors', () => {
  it.each(SET_NAMES)('scrape every component the %s values deploy, on the port its pods are annotated with', (name) => {
    const manifests = on[name] ?? [];
    const deployed = ofKind(manifests, 'Deployment').map((deployment) => deployment.metadata.labels?.['app.kubernetes.io/component'] ?? '');
    const monitors = ofKind(manifests, 'ServiceMonitor');
    expect(monitors.map((monitor) => monitor.metadata.name).sort()).toEqual(deployed.map(nameOf).sort());
    for (const component of deployed) {
      const monitor = get(manifests, 'ServiceMonitor', nameOf(component));
      const service = get(manifests, 'Service', nameOf(component));
      expect(monitor.spec.selector.matchLabels).toEqual(service.spec.selector);
      expect(monitor.spec.namespaceSelector).toEqual({ matchNames: ['atelier'] });
      const [endpoint] = monitor.spec.endpoints;
      const port = service.spec.ports.find((candidate: Manifest) => candidate.name === endpoint.port);
      const described = portsOf(component);
      expect(port?.port, `${component} scrape port`).toBe(described.metrics ?? described.main);
      expect(endpoint.path).toBe('/metrics');
      const annotations = get(manifests, 'Deployment', nameOf(component)).spec.template.metadata.annotations;
      if (annotations['prometheus.io/port']) expect(String(port?.port)).toBe(annotations['prometheus.io/port']);
    }
  });

  it('let Prometheus reach provider-sim, whose own NetworkPolicy admits the worker only', () => {
    const policy = get(on.default ?? [], 'NetworkPolicy', `${nameOf('provider-sim')}-metrics`);
    expect(policy.spec.ingress).toEqual([{ from: expect.any(Array), ports: [{ port: portsOf('provider-sim').main, protocol: 'TCP' }] }]);
    expect(ofKind(on.production ?? [], 'NetworkPolicy').map((p) => p.metadata.name)).not.toContain(`${nameOf('provider-sim')}-metrics`);
    expect(deployableServices()).toContain('provider-sim');
  });

  it('take extra labels, interval and timeout from the values', () => {
    const manifests = helm.render(
      withMonitoring({
        set: { 'monitoring.serviceMonitors.labels.release': 'kube-prometheus-stack', 'monitoring.serviceMonitors.interval': '15s' },
      }),
    );
    const monitor = get(manifests, 'ServiceMonitor', nameOf('jobs'));
    expect(monitor.metadata.labels?.release).toBe('kube-prometheus-stack');
    expect(monitor.spec.endpoints[0]).toMatchObject({ interval: '15s', scrapeTimeout: '10s', port: 'metrics' });
  });
});

describe('chart monitoring - PrometheusRule', () => {
  it('alerts on what the issue asks for, each with a severity, a summary, a description and a runbook', () => {
    const alerts = alertsOf(on.default ?? []);
    expect([...new Set(alerts.map((alert) => alert.alert))].sort()).toEqual([
      'AtelierConsumerLag',
      'AtelierGateway5xxRatio',
      'AtelierLeaseExpiries',
      'AtelierOutboxDeadRows',
      'AtelierProviderBudgetHigh',
      'AtelierQueueWaitTooLong',
      'AtelierReconciliationFindings',
      'AtelierReconciliationNotRunning',
      'AtelierWorkerFailureRatio',
    ]);
    for (const alert of alerts) {
      expect(alert.labels.severity, alert.alert).toMatch(/^(critical|warning)$/);
      expect(alert.for, alert.alert).toMatch(/^\d+m$/);
      for (const key of ['summary', 'description', 'runbook']) expect(alert.annotations[key], `${alert.alert} ${key}`).toMatch(/\w{3,}/);
    }
  });

  it.each(SET_NAMES)('has expressions that parse and name only series and labels the code registers (%s values)', (name) => {
    const alerts = alertsOf(on[name] ?? []);
    expect(alerts.flatMap((alert) => expressionProblems(alert.expr).map((problem) => `${alert.alert}: ${problem}`))).toEqual([]);
  });

  it('names the JetStream stream and consumers the worker consumes (libs/nats topology)', () => {
    const lag = alertsOf(on.production ?? []).find((alert) => alert.alert === 'AtelierConsumerLag');
    const [selector] = parsePromql(lag?.expr ?? '').selectors;
    const topology = jobsTopology('ATELIER');
    expect(selector?.matchers).toContainEqual({ label: 'stream_name', op: '=', value: topology.jobsStream });
    const consumers = selector?.matchers.find((matcher) => matcher.label === 'consumer_name');
    for (const queue of JOB_QUEUES) expect(topology.consumerName(queue)).toMatch(new RegExp(`^(?:${consumers?.value})$`));
  });

  it('watches the oldest ready job of every queue the code has', () => {
    const queues = alertsOf(on.default ?? [])
      .filter((alert) => alert.alert === 'AtelierQueueWaitTooLong')
      .flatMap((alert) =>
        parsePromql(alert.expr)
          .selectors[0]?.matchers.filter((m) => m.label === 'queue')
          .map((m) => m.value),
      );
    expect(queues.sort()).toEqual([...JOB_QUEUES].sort());
  });

  it('takes thresholds, durations, severities, the series selector and the exporter series name from the values', () => {
    const manifests = helm.render(
      withMonitoring({
        set: {
          'monitoring.prometheusRule.alerts.gateway5xx.for': '2m',
          'monitoring.prometheusRule.alerts.gateway5xx.severity': 'warning',
          'monitoring.prometheusRule.alerts.oldestReadyAge.thresholdSeconds.interactive': '30',
          'monitoring.prometheusRule.alerts.consumerLag.metric': 'jetstream_consumer_num_pending',
          'monitoring.prometheusRule.alerts.leaseExpiries.enabled': 'false',
          'monitoring.prometheusRule.seriesSelector': 'job=~"atelier-.*"',
          'monitoring.prometheusRule.labels.release': 'kube-prometheus-stack',
        },
        // --set would make 0.1 a string.
        extraArgs: ['--set-json', 'monitoring.prometheusRule.alerts.gateway5xx.ratio=0.1'],
      }),
    );
    expect(ruleOf(manifests).metadata.labels?.release).toBe('kube-prometheus-stack');
    const alerts = alertsOf(manifests);
    const gateway = alerts.find((alert) => alert.alert === 'AtelierGateway5xxRatio');
    expect(gateway).toMatchObject({ for: '2m', labels: { severity: 'warning' } });
    expect(gateway?.expr).toMatch(/> 0\.1$/);
    expect(gateway?.expr).toContain('{job=~"atelier-.*", status=~"5.."}');
    expect(alerts.map((alert) => alert.expr).join('\n')).toMatch(/queue="interactive"\}\) > 30$/m);
    expect(alerts.find((alert) => alert.alert === 'AtelierConsumerLag')?.expr).toMatch(
      /^max by \(stream_name, consumer_name\) \(jetstream_consumer_num_pending\{/,
    );
    expect(alerts.map((alert) => alert.alert)).not.toContain('AtelierLeaseExpiries');
  });

  it('renders a valid rule with every alert disabled', () => {
    const set: Record<string, string> = {};
    for (const alert of [
      'outboxDead',
      'oldestReadyAge',
      'leaseExpiries',
      'workerFailures',
      'consumerLag',
      'gateway5xx',
      'reconciliationFindings',
      'reconciliationStale',
      'providerBudget',
    ]) {
      set[`monitoring.prometheusRule.alerts.${alert}.enabled`] = 'false';
    }
    const rule = ruleOf(helm.render(withMonitoring({ set })));
    expect(rule.spec.groups[0].rules).toEqual([]);
    expect(validateManifest(rule)).toEqual([]);
  });

  it('refuses values that would render a broken rule', () => {
    const refused: [string, string][] = [
      ['monitoring.prometheusRule.alerts.gateway5xx.for', '5 minutes'],
      ['monitoring.prometheusRule.alerts.workerFailures.ratio', '25'],
      ['monitoring.prometheusRule.seriesSelector', '{namespace="x"}'],
      ['monitoring.prometheusRule.alerts.consumerLag.metric', 'nats consumer'],
    ];
    for (const [key, value] of refused) {
      const result = helm.run(helm.templateArgs(withMonitoring({ set: { [key]: value } })));
      expect(result.status, `${key}=${value}`).not.toBe(0);
      expect(result.stderr).toContain(key.split('.').slice(-2).join('/'));
    }
  });

  it('catches what the checks exist to catch: bad syntax, a series the code lacks, a label it lacks, a value it never sets', () => {
    expect(expressionProblems('sum(rate(atelier_outbox_backlog[5m]) by')).toEqual([expect.stringMatching(/syntax error/)]);
    expect(expressionProblems('rate(atelier_jobs_leases_expired_total[5m])')).toEqual([expect.stringMatching(/neither registered/)]);
    expect(expressionProblems('atelier_outbox_backlog{state="dead"}')).toEqual([expect.stringMatching(/has no label state/)]);
    expect(expressionProblems('atelier_outbox_backlog{status="deceased"}')).toEqual([
      expect.stringMatching(/status="deceased" is set nowhere/),
    ]);
    expect(expressionProblems('sum by (queue) (atelier_outbox_backlog)')).toEqual([expect.stringMatching(/groups by queue/)]);
    expect(
      expressionProblems('histogram_quantile(0.99, sum by (le, method) (rate(atelier_grpc_server_handling_seconds_bucket[5m])))'),
    ).toEqual([]);
  });
});

describe('chart monitoring - Grafana dashboard', () => {
  it('is a ConfigMap for the Grafana sidecar holding dashboards/atelier.json as it is', () => {
    const configMap = dashboardOf(on.default ?? []);
    expect(configMap.metadata.labels?.grafana_dashboard).toBe('1');
    expect(Object.keys(configMap.data)).toEqual(['atelier.json']);
    expect(JSON.parse(configMap.data['atelier.json'])).toEqual(dashboardJson());
    const elsewhere = helm.render(withMonitoring({ set: { 'monitoring.grafanaDashboard.namespace': 'monitoring' } }));
    expect(dashboardOf(elsewhere).metadata).toMatchObject({ namespace: 'monitoring' });
  });

  it('has the panels the issue asks for, each with a query, unique ids and no overlap', () => {
    const dashboard = dashboardJson();
    expect(dashboard.uid).toBe('atelier-overview');
    const titles: string[] = dashboard.panels.map((panel: Manifest) => panel.title);
    for (const wanted of [
      /throughput by outcome/i,
      /failures/i,
      /queue depth/i,
      /oldest queued age/i,
      /outbox backlog/i,
      /grpc latency p99 by method/i,
      /gateway 5xx/i,
      /worker provider submissions/i,
    ]) {
      expect(
        titles.some((title) => wanted.test(title)),
        String(wanted),
      ).toBe(true);
    }
    const ids = dashboard.panels.map((panel: Manifest) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    const cells = new Set<string>();
    for (const panel of dashboard.panels) {
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets) expect(target.expr, panel.title).toMatch(/\b(atelier|nats)_\w+/);
      for (let x = panel.gridPos.x; x < panel.gridPos.x + panel.gridPos.w; x++)
        for (let y = panel.gridPos.y; y < panel.gridPos.y + panel.gridPos.h; y++) {
          expect(cells.has(`${x},${y}`), `${panel.title} overlaps at ${x},${y}`).toBe(false);
          cells.add(`${x},${y}`);
        }
    }
  });

  it('queries only series and labels the code registers, in PromQL that parses', () => {
    const dashboard = dashboardJson();
    expect(dashboardExprs(dashboard).flatMap((expr) => expressionProblems(expr).map((problem) => `${expr}: ${problem}`))).toEqual([]);
    const variables = dashboard.templating.list.map((variable: Manifest) => variable.name);
    expect(variables).toEqual(['datasource', 'namespace']);
    expect(expressionProblems(dashboard.templating.list[1].definition.replace(/^label_values\((\w+), \w+\)$/, '$1'))).toEqual([]);
  });
});
