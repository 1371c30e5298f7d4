// A Prometheus histogram from a service's /metrics, by one label, read before and after a phase:
// how many observations the phase added, their mean, and quantiles interpolated within buckets.

export interface HistogramSeries {
  count: number;
  sum: number;
  /** Cumulative counts by upper bound (`le`), +Inf last. */
  buckets: [number, number][];
}

export type Histograms = Record<string, HistogramSeries>;

/** Every series of histogram `name`, keyed by the value of `label`. */
export async function readHistogram(metricsPort: number, name: string, label: string): Promise<Histograms> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const sample = new RegExp(`^${name}_(count|sum|bucket)\\{([^}]*)\\} (\\S+)$`);
  const labelValue = new RegExp(`${label}="([^"]*)"`);
  const series: Histograms = {};
  for (const line of text.split('\n')) {
    const match = sample.exec(line);
    const key = match && labelValue.exec(match[2]!)?.[1];
    if (!match || key === undefined || key === null) continue;
    const entry = (series[key] ??= { count: 0, sum: 0, buckets: [] });
    const value = Number(match[3]);
    if (match[1] === 'count') entry.count = value;
    else if (match[1] === 'sum') entry.sum = value;
    else {
      const le = /le="([^"]+)"/.exec(match[2]!)?.[1];
      entry.buckets.push([le === '+Inf' ? Infinity : Number(le), value]);
    }
  }
  return series;
}

/** The sum of counter `name`'s series that carry every given label (e.g. `{ outcome: 'handed_over' }`). */
export async function readCounter(metricsPort: number, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const sample = new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`);
  let total = 0;
  for (const line of text.split('\n')) {
    const match = sample.exec(line);
    if (match && Object.entries(labels).every(([key, value]) => (match[1] ?? '').includes(`${key}="${value}"`))) total += Number(match[2]);
  }
  return total;
}

/** What was observed between two readings of the same series. */
export function histogramDelta(before: HistogramSeries | undefined, after: HistogramSeries): HistogramSeries {
  return {
    count: after.count - (before?.count ?? 0),
    sum: after.sum - (before?.sum ?? 0),
    buckets: after.buckets.map(([le, cumulative], i) => [le, cumulative - (before?.buckets[i]?.[1] ?? 0)]),
  };
}

/** The q-quantile, linearly interpolated inside its bucket (as Prometheus's histogram_quantile). */
export function histogramQuantile(series: HistogramSeries, q: number): number {
  const rank = q * series.count;
  let lower = 0;
  let below = 0;
  for (const [le, cumulative] of series.buckets) {
    if (cumulative >= rank) {
      if (le === Infinity) return lower;
      const inBucket = cumulative - below;
      return inBucket === 0 ? le : lower + ((le - lower) * (rank - below)) / inBucket;
    }
    lower = le;
    below = cumulative;
  }
  return lower;
}
