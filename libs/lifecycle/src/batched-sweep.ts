import { setTimeout as sleep } from 'node:timers/promises';
import { startPeriodicTask, type PeriodicTask } from './periodic-task.js';

interface LoggerLike {
  warn(obj: object, msg: string): void;
}

/** What one batch did: how many rows it handled, and where the next one starts (null: nothing more is due). */
export interface SweptBatch<C> {
  count: number;
  next: C | null;
}

export interface SweepInBatchesOptions {
  /** Aborts the sweep between two batches: the statement under way finishes, no other starts. */
  signal?: AbortSignal;
  /** The pause between two batches, so a backlog never crowds the hot path (none by default). */
  pauseMs?: number;
  /** Told of every batch that handled rows (a metric, say). */
  onBatch?: (count: number) => void;
}

/**
 * Works through a backlog one bounded statement at a time, each its own short transaction: the
 * first batch gets a null cursor, each next one the cursor the last answered, until a batch says
 * nothing more is due (a short batch), declines (null: another replica holds the sweep's lock this
 * turn) or the signal aborts. Answers how many rows the batches handled.
 */
export async function sweepInBatches<C>(
  batch: (cursor: C | null) => Promise<SweptBatch<C> | null>,
  options: SweepInBatchesOptions = {},
): Promise<number> {
  const { signal, pauseMs = 0, onBatch } = options;
  let total = 0;
  let cursor: C | null = null;
  for (;;) {
    const swept = await batch(cursor);
    if (swept === null) return total;
    total += swept.count;
    if (swept.count > 0) onBatch?.(swept.count);
    if (swept.next === null || signal?.aborted) return total;
    cursor = swept.next;
    if (pauseMs > 0) await sleep(pauseMs, undefined, { signal }).catch(() => undefined);
    if (signal?.aborted) return total;
  }
}

export interface BatchedSweepOptions<R> {
  /** What the sweep does, as its log lines say it ("lease reaping" → "lease reaping failed; …"). */
  name: string;
  /** The pause between the end of one sweep and the start of the next. */
  intervalMs: number;
  /** The most rows one batch statement handles: a batch that comes back full is followed by another. */
  batchSize: number;
  /** Told of a failed sweep; the next comes at the next interval. */
  logger: LoggerLike;
  /**
   * One batch statement over at most `limit` rows, in its own transaction; answers the rows it
   * handled, or null when this replica must leave the turn to another (it holds the sweep's lock).
   */
  batch: (limit: number) => Promise<readonly R[] | null>;
  /** What the rows of a batch that handled any are for: announce them, count them, log them. */
  onBatch: (rows: readonly R[]) => void;
  /** When the next rows fall due, for a sweep that can tell: it wakes then (startPeriodicTask's nextRunInMs). */
  nextRunInMs?: () => Promise<number>;
}

/**
 * A periodic sweep over a table in bounded batches (startPeriodicTask around sweepInBatches):
 * every intervalMs (or when nextRunInMs says the next rows fall due), batches until one comes back short; sweeps never overlap, a failed one is
 * logged, and stop() lets the batch under way finish and starts no other.
 */
export class BatchedSweep<R> {
  private task: PeriodicTask | undefined;

  constructor(private readonly sweep: BatchedSweepOptions<R>) {}

  start(): void {
    const { name, intervalMs, logger, nextRunInMs } = this.sweep;
    this.task = startPeriodicTask({ name, intervalMs, logger, nextRunInMs, run: (signal) => this.runOnce(signal) });
  }

  async stop(): Promise<void> {
    await this.task?.stop();
  }

  /** Sweeps until nothing is due (or `signal` aborts); answers how many rows the batches handled. */
  runOnce(signal?: AbortSignal): Promise<number> {
    const { batchSize, batch, onBatch } = this.sweep;
    return sweepInBatches(
      async () => {
        const rows = await batch(batchSize);
        if (rows === null) return null;
        if (rows.length > 0) onBatch(rows);
        return { count: rows.length, next: rows.length < batchSize ? null : true };
      },
      { signal },
    );
  }
}
