// The Prometheus series the code registers, read from its sources with the TypeScript parser:
// every `new Counter|Gauge|Histogram|Summary({ name: '…', labelNames: [...] })` in the non-test
// files of libs/*/src and services/*/src, so a rule or dashboard query naming a series or label
// the code does not have fails a test instead of showing nothing in production.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { repoRoot } from './helm.js';

export type MetricType = 'Counter' | 'Gauge' | 'Histogram' | 'Summary';

export interface RegisteredMetric {
  name: string;
  type: MetricType;
  labelNames: string[];
  /** Where it is registered, relative to the repository root. */
  file: string;
}

/** Labels every series of a service carries: createMetricsRegistry's default label (libs/metrics). */
export const DEFAULT_LABELS = ['service'];

/** What each metric type adds to its name in the exposition format, and the labels it adds. */
const SERIES_OF: Record<MetricType, { suffix: string; labels: string[] }[]> = {
  Counter: [{ suffix: '', labels: [] }],
  Gauge: [{ suffix: '', labels: [] }],
  Histogram: [
    { suffix: '_bucket', labels: ['le'] },
    { suffix: '_count', labels: [] },
    { suffix: '_sum', labels: [] },
  ],
  Summary: [
    { suffix: '', labels: ['quantile'] },
    { suffix: '_count', labels: [] },
    { suffix: '_sum', labels: [] },
  ],
};

const METRIC_TYPES = new Set<string>(['Counter', 'Gauge', 'Histogram', 'Summary']);

function sourceFiles(): string[] {
  const files: string[] = [];
  for (const top of ['libs', 'services']) {
    for (const entry of readdirSync(path.join(repoRoot, top), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const src = path.join(top, entry.name, 'src');
      let names: string[];
      try {
        names = readdirSync(path.join(repoRoot, src), { recursive: true, encoding: 'utf8' });
      } catch {
        continue;
      }
      for (const name of names) {
        if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.includes(`gen${path.sep}`)) files.push(path.join(src, name));
      }
    }
  }
  return files;
}

const stringsOf = (node: ts.Expression | undefined): string[] | undefined => {
  while (node && (ts.isAsExpression(node) || ts.isSatisfiesExpression(node))) node = node.expression;
  if (!node || !ts.isArrayLiteralExpression(node)) return undefined;
  return node.elements.filter(ts.isStringLiteralLike).map((element) => element.text);
};

/** Every metric the sources register, by name. Throws on a registration it cannot read. */
export function registeredMetrics(): Map<string, RegisteredMetric> {
  const metrics = new Map<string, RegisteredMetric>();
  for (const file of sourceFiles()) {
    const text = readFileSync(path.join(repoRoot, file), 'utf8');
    if (!/new (Counter|Gauge|Histogram|Summary)\b/.test(text)) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    // Object literals bound to a name in this file, for `{ ...byType }` spreads.
    const objects = new Map<string, ts.ObjectLiteralExpression>();
    const collect = (node: ts.Node): void => {
      if (
        ts.isVariableDeclaration(node) &&
        ts.isIdentifier(node.name) &&
        node.initializer &&
        ts.isObjectLiteralExpression(node.initializer)
      ) {
        objects.set(node.name.text, node.initializer);
      }
      ts.forEachChild(node, collect);
    };
    collect(source);
    const property = (literal: ts.ObjectLiteralExpression, key: string): ts.Expression | undefined => {
      for (const member of literal.properties) {
        if (ts.isPropertyAssignment(member) && member.name.getText(source) === key) return member.initializer;
        if (ts.isSpreadAssignment(member) && ts.isIdentifier(member.expression)) {
          const spread = objects.get(member.expression.text);
          const found = spread && property(spread, key);
          if (found) return found;
        }
      }
      return undefined;
    };
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && METRIC_TYPES.has(node.expression.text)) {
        const options = node.arguments?.[0];
        const at = `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        if (!options || !ts.isObjectLiteralExpression(options)) throw new Error(`${at}: a metric registered without an object literal`);
        const name = property(options, 'name');
        if (!name || !ts.isStringLiteralLike(name)) throw new Error(`${at}: a metric whose name is no string literal`);
        const labelNames = property(options, 'labelNames');
        const labels = labelNames === undefined ? [] : stringsOf(labelNames);
        if (!labels) throw new Error(`${at}: ${name.text} has labelNames that are no array of string literals`);
        metrics.set(name.text, { name: name.text, type: node.expression.text as MetricType, labelNames: labels, file });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return metrics;
}

/** Series name (as queried: `x_bucket`, `x_count`) → the labels it may carry, for every registered metric. */
export function registeredSeries(metrics = registeredMetrics()): Map<string, Set<string>> {
  const series = new Map<string, Set<string>>();
  for (const metric of metrics.values()) {
    for (const { suffix, labels } of SERIES_OF[metric.type]) {
      series.set(`${metric.name}${suffix}`, new Set([...metric.labelNames, ...labels, ...DEFAULT_LABELS]));
    }
  }
  return series;
}

/** Whether a string literal (`'dead'`) occurs in the non-test sources: label values the code sets. */
export function sourcesContainLiteral(value: string): boolean {
  return sourceFiles().some((file) => {
    const text = readFileSync(path.join(repoRoot, file), 'utf8');
    return text.includes(`'${value}'`) || text.includes(`"${value}"`);
  });
}
