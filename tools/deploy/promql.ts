// PromQL checked offline, as promtool would check rule files: Prometheus's own grammar
// (@prometheus-io/lezer-promql, the parser of its web UI) parses each expression, and the series
// selectors are taken from the syntax tree for the name and label checks of the monitoring tests.
import { parser } from '@prometheus-io/lezer-promql';

type SyntaxNode = ReturnType<typeof parser.parse>['topNode'];

export interface LabelMatcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export interface SeriesSelector {
  metric: string;
  matchers: LabelMatcher[];
}

export interface ParsedPromql {
  /** Syntax errors, each with the text around it; empty when the expression parses. */
  errors: string[];
  selectors: SeriesSelector[];
  /** Labels named in `by (…)` / `without (…)` / `on (…)` / `ignoring (…)`. */
  groupingLabels: string[];
}

/** Grafana's variables, replaced by values of the same syntactic kind before parsing. */
export function substituteGrafanaVariables(expr: string): string {
  return expr.replace(/\$__(rate_)?interval|\$__range/g, '5m').replace(/\$\{?(\w+)\}?/g, 'grafana_$1');
}

const unquote = (literal: string): string =>
  JSON.parse(literal.startsWith("'") ? `"${literal.slice(1, -1).replace(/"/g, '\\"')}"` : literal);

export function parsePromql(expr: string): ParsedPromql {
  const tree = parser.parse(expr);
  const errors: string[] = [];
  const selectors: SeriesSelector[] = [];
  const groupingLabels: string[] = [];
  const text = (node: SyntaxNode) => expr.slice(node.from, node.to);
  tree.iterate({
    enter: (ref) => {
      if (ref.type.isError) errors.push(`syntax error at ${ref.from}: …${expr.slice(Math.max(0, ref.from - 20), ref.from + 20)}…`);
      if (ref.name === 'GroupingLabels') for (const label of ref.node.getChildren('LabelName')) groupingLabels.push(text(label));
      if (ref.name !== 'VectorSelector') return;
      const node = ref.node;
      const identifier = node.getChild('Identifier');
      const matchers: LabelMatcher[] = [];
      let metric = identifier ? text(identifier) : '';
      for (const matcher of node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []) {
        const label = matcher.getChild('LabelName');
        const op = matcher.getChild('MatchOp');
        const value = matcher.getChild('StringLiteral');
        if (!label || !op || !value) continue;
        const parsed = { label: text(label), op: text(op) as LabelMatcher['op'], value: unquote(text(value)) };
        if (parsed.label === '__name__' && parsed.op === '=') metric = parsed.value;
        else matchers.push(parsed);
      }
      selectors.push({ metric, matchers });
    },
  });
  return { errors, selectors, groupingLabels };
}
