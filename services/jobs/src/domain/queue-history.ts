/** The queue over the overview's window, one entry per bucket, rebuilt from the events. */

export interface QueueFlow {
  bucketStart: Date;
  /** Events into `queued` (creations, requeues, retries) minus events out of it (claims, cancels) in the bucket. */
  netQueued: number;
}

/** Nearest-rank percentiles of a duration; all 0 when count is 0. */
export interface Percentiles {
  count: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
}

export interface BucketWaits {
  bucketStart: Date;
  queueWait: Percentiles;
}

export interface QueueBucket {
  bucketStart: Date;
  queuedAtEnd: number;
  queueWait: Percentiles;
}

export const NO_DURATIONS: Percentiles = { count: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0 };

/**
 * Every bucket from windowStart, its depth replayed back from the current one: the jobs queued
 * when a bucket ends are those queued now, less the ones that entered `queued` since, plus the
 * ones that left it since. Exact as long as every change of status writes an event, which the
 * transitions do in the same statement, and none of the window's events has been archived
 * (see overview-sql.ts). Flows of buckets after the last (a clock ahead of now()) still count.
 */
export function queueHistory(
  windowStart: Date,
  bucketMinutes: number,
  bucketCount: number,
  queuedNow: number,
  flows: readonly QueueFlow[],
  waits: readonly BucketWaits[],
): QueueBucket[] {
  const bucketMs = bucketMinutes * 60_000;
  const start = windowStart.getTime();
  const netByBucket = new Map<number, number>();
  let netAfterWindow = 0;
  for (const flow of flows) {
    const index = Math.floor((flow.bucketStart.getTime() - start) / bucketMs);
    if (index >= bucketCount) netAfterWindow += flow.netQueued;
    else if (index >= 0) netByBucket.set(index, (netByBucket.get(index) ?? 0) + flow.netQueued);
  }
  const waitsByBucket = new Map(waits.map((w) => [w.bucketStart.getTime(), w.queueWait]));
  const history: QueueBucket[] = new Array(bucketCount);
  let queued = queuedNow - netAfterWindow;
  for (let index = bucketCount - 1; index >= 0; index -= 1) {
    const bucketStart = start + index * bucketMs;
    history[index] = { bucketStart: new Date(bucketStart), queuedAtEnd: queued, queueWait: waitsByBucket.get(bucketStart) ?? NO_DURATIONS };
    queued -= netByBucket.get(index) ?? 0;
  }
  return history;
}
