// A service's garbage-collection pauses, from the nodejs_gc_duration_seconds histogram its
// /metrics serves (prom-client's default metrics: one observation per pause, by kind). Read before
// and after a phase: how many pauses of each kind it had, their time, and how many were long
// enough to show in a caller's tail.
import { histogramDelta, readHistogram, type Histograms } from './histogram-scrape.js';

/** The service's pauses since it started, by kind (minor: a scavenge; major: a mark-compact). */
export function readGcPauses(metricsPort: number): Promise<Histograms> {
  return readHistogram(metricsPort, 'nodejs_gc_duration_seconds', 'kind');
}

/** What happened between two readings, in words: "21 scavenges, 228 ms (11 ≥ 10 ms); 3 mark-compacts, 47 ms (3 ≥ 10 ms)". */
export function describeGcPauses(before: Histograms, after: Histograms): string {
  const names: [string, string][] = [
    ['minor', 'scavenges'],
    ['major', 'mark-compacts'],
  ];
  return names
    .map(([kind, name]) => {
      if (!after[kind]) return `0 ${name}`;
      const pauses = histogramDelta(before[kind], after[kind]);
      // prom-client's buckets for it: 1 ms, 10 ms, 100 ms, 1 s, 2 s, 5 s.
      const under10ms = pauses.buckets.find(([le]) => le === 0.01)?.[1] ?? pauses.count;
      return `${pauses.count} ${name}, ${Math.round(pauses.sum * 1000)} ms (${pauses.count - under10ms} ≥ 10 ms)`;
    })
    .join('; ');
}
