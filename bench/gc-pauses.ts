// A service's garbage-collection pauses, from the nodejs_gc_duration_seconds histogram its
// /metrics serves (prom-client's default metrics: one observation per pause, by kind). Read before
// and after a phase: how many pauses of each kind it had, their time, and how many were long
// enough to show in a caller's tail.

/** prom-client's kinds: minor is a scavenge, major a mark-compact, incremental a marking step. */
type GcKind = 'minor' | 'major' | 'incremental' | 'weakcb';

interface KindTotals {
  count: number;
  seconds: number;
  /** Pauses of at least 10 ms (the histogram's 0.01 s bucket bound). */
  atLeast10ms: number;
}

export type GcPauses = Partial<Record<GcKind, KindTotals>>;

const SAMPLE = /^nodejs_gc_duration_seconds_(count|sum|bucket)\{([^}]*)\} (\S+)$/;

/** The service's pauses since it started, by kind. */
export async function readGcPauses(metricsPort: number): Promise<GcPauses> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const pauses: GcPauses = {};
  const bucketAt10ms: Partial<Record<GcKind, number>> = {};
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (!match) continue;
    const [, series, labels, value] = match;
    const kind = /kind="([a-z]+)"/.exec(labels!)?.[1] as GcKind | undefined;
    if (!kind) continue;
    const totals = (pauses[kind] ??= { count: 0, seconds: 0, atLeast10ms: 0 });
    if (series === 'count') totals.count = Number(value);
    else if (series === 'sum') totals.seconds = Number(value);
    else if (/le="0\.01"/.test(labels!)) bucketAt10ms[kind] = Number(value);
  }
  for (const [kind, totals] of Object.entries(pauses) as [GcKind, KindTotals][]) {
    totals.atLeast10ms = totals.count - (bucketAt10ms[kind] ?? totals.count);
  }
  return pauses;
}

/** What happened between two readings, in words: "21 scavenges, 228 ms (11 ≥ 10 ms); 3 mark-compacts, 47 ms (3 ≥ 10 ms)". */
export function describeGcPauses(before: GcPauses, after: GcPauses): string {
  const names: [GcKind, string][] = [
    ['minor', 'scavenges'],
    ['major', 'mark-compacts'],
  ];
  return names
    .map(([kind, name]) => {
      const count = (after[kind]?.count ?? 0) - (before[kind]?.count ?? 0);
      const ms = ((after[kind]?.seconds ?? 0) - (before[kind]?.seconds ?? 0)) * 1000;
      const long = (after[kind]?.atLeast10ms ?? 0) - (before[kind]?.atLeast10ms ?? 0);
      return `${count} ${name}, ${Math.round(ms)} ms (${long} ≥ 10 ms)`;
    })
    .join('; ');
}
