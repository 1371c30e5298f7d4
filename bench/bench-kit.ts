// Small helpers shared by the benchmarks: percentiles, a closed-loop load driver, table output.
import { requirePinnedNode } from '../scripts/node-runtime.mjs';

// Every benchmark imports this kit: figures are only comparable on the pinned runtime, so a run
// on another Node stops here (ATELIER_ALLOW_ANY_NODE=1 to compare runtimes on purpose) and every
// run says which runtime it measured.
requirePinnedNode('The benchmarks');
console.log(`bench: Node.js ${process.version}`);

/** The p-th percentile (0–100) of the values, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/**
 * Runs `work` from `concurrency` loops for `durationMs` (after a warm-up) and answers the
 * completed operations per second and each operation's latency, with when it started (performance.now()).
 */
export async function closedLoop(
  work: (i: number) => Promise<void>,
  options: { concurrency: number; durationMs: number; warmupMs?: number },
): Promise<{ opsPerSecond: number; latenciesMs: number[]; startedAtMs: number[]; errors: number; firstError?: unknown }> {
  let counter = 0;
  let errors = 0;
  let firstError: unknown;
  const latencies: number[] = [];
  const startedAtMs: number[] = [];
  const warmupEnds = Date.now() + (options.warmupMs ?? 1_000);
  const ends = warmupEnds + options.durationMs;
  let measured = 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (Date.now() < ends) {
        const i = counter++;
        const startedAt = performance.now();
        try {
          await work(i);
          if (Date.now() >= warmupEnds && Date.now() < ends) {
            measured += 1;
            latencies.push(performance.now() - startedAt);
            startedAtMs.push(startedAt);
          }
        } catch (error) {
          errors += 1;
          firstError ??= error;
        }
      }
    }),
  );
  return { opsPerSecond: measured / (options.durationMs / 1000), latenciesMs: latencies, startedAtMs, errors, firstError };
}

export function printTable(title: string, rows: Record<string, string | number>[]): void {
  console.log(`\n${title}`);
  console.table(rows);
}

export const ms = (value: number) => Number(value.toFixed(2));

/** Runs work(0 … count-1) with at most `concurrency` in flight; answers the elapsed milliseconds. */
export async function forEachConcurrently(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<number> {
  const startedAt = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await work(next++);
    }),
  );
  return performance.now() - startedAt;
}
