import { setTimeout as sleep } from 'node:timers/promises';
import type { Queryable, SqlPool } from '@atelier/db';
import { startPeriodicTask, sweepInBatches, type PeriodicTask, type SweptBatch } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { pruneEndedQuotaHits } from '../db/quota-hits-sql.js';
import { pruneJobEvents, prunePublishedOutbox, tryLockRetention, unlockRetention } from '../db/retention-sql.js';
import {
  markInputImagesKept,
  markInputImagesRemoved,
  redactEndedJobs,
  selectExpiredInputImages,
  type EndedJobCursor,
} from '../db/redaction-sql.js';
import type { InputImageRemover } from '../peers/input-image-remover.js';
import type { JobRetentionPeriods } from './retention-periods.js';

/**
 * What retention removes, as the metric labels it: rows of three tables, jobs whose prompts it
 * redacted, input images it had media delete.
 */
export type RetentionTable = 'outbox' | 'job_events' | 'quota_hits' | 'redacted_jobs' | 'input_images';
export const RETENTION_TABLES: readonly RetentionTable[] = ['outbox', 'job_events', 'quota_hits', 'redacted_jobs', 'input_images'];

export interface RetentionPrunerOptions {
  pool: SqlPool;
  logger: Logger;
  intervalMs: number;
  /** Published outbox rows are deleted this long after their publication. */
  outboxRetentionMs: number;
  /** job_events of jobs terminal for this many days are pruned (their history archived); 0 keeps them. */
  jobEventsRetentionDays: number;
  /** Rows per delete statement (each its own transaction). */
  batchSize: number;
  /** Jobs per redaction statement, and input images per batch (smaller: each rewrites whole rows). */
  redactionBatchSize: number;
  /** Pause between two statements, so pruning a backlog never crowds the hot path. */
  batchPauseMs: number;
  /** Each job type's periods for what its users wrote and gave (the definitions' `retention`). */
  periods: JobRetentionPeriods;
  /** Media, which deletes expired input images; absent: none are deleted (the redaction still runs). */
  inputImages?: InputImageRemover;
  /** Told after each batch how many rows went. */
  onPruned?: (table: RetentionTable, count: number) => void;
}

/**
 * Keeps the jobs schema's history bounded (docs/services.md, "Retention: the policy"): published outbox rows after
 * outboxRetentionMs, the job_events of jobs terminal for jobEventsRetentionDays — their
 * histories archived first, so the users' views do not change — and the quota refusals of
 * periods that ended (the overview shows the current ones only). A run deletes in batches of
 * batchSize rows, each batch one short transaction, pausing batchPauseMs between them, until
 * nothing is due. One replica prunes at a time: a run holds a session advisory lock on one
 * pooled connection (released when the run ends, or with the session if the process dies); a
 * replica that finds it taken skips its turn.
 *
 * Then what users wrote and gave (docs/retention.md), per job type: the prompts and effective
 * inputs of jobs ended past their type's period are redacted, batch by batch as above; and the
 * input images of jobs ended past their type's image period, that no other job still keeps, are
 * handed to media one by one, which deletes each unless a queued or running job or a published
 * post uses it (its CAS on the asset closes the race with a new job). What media did is written
 * on the jobs that used the image. A media that cannot answer ends this step for the run: the
 * next run asks again, as it does for anything a stopped run left — every step is driven by what
 * is still due, so a run cut short is simply continued.
 */
export class RetentionPruner {
  private task: PeriodicTask | undefined;

  constructor(private readonly options: RetentionPrunerOptions) {}

  start(): void {
    const { intervalMs, logger } = this.options;
    this.task = startPeriodicTask({ name: 'retention pruning', intervalMs, logger, run: (signal) => this.runOnce(signal) });
  }

  /** Stops between two batches: the statement under way finishes, nothing else starts. */
  async stop(): Promise<void> {
    await this.task?.stop();
  }

  /**
   * One run over the tables, until nothing is due or `signal` aborts; answers the rows deleted,
   * or null when another replica holds the lock.
   */
  async runOnce(signal: AbortSignal = new AbortController().signal): Promise<Record<RetentionTable, number> | null> {
    const client = await this.options.pool.connect();
    let healthy = true;
    try {
      if (!(await tryLockRetention(client))) return null;
      try {
        const outbox = await this.inBatches('outbox', signal, async (cursor: Date | null) => {
          const batch = await prunePublishedOutbox(client, this.options.outboxRetentionMs, this.options.batchSize, cursor);
          return { count: batch.deleted, next: batch.deleted < this.options.batchSize ? null : batch.reached };
        });
        const jobEvents =
          this.options.jobEventsRetentionDays === 0
            ? 0
            : await this.inBatches('job_events', signal, async (cursor: string | null) => {
                const batch = await pruneJobEvents(client, this.options.jobEventsRetentionDays, this.options.batchSize, cursor ?? '0');
                return { count: batch.deleted, next: batch.next };
              });
        const quotaHits = await this.inBatches('quota_hits', signal, async () => {
          const deleted = await pruneEndedQuotaHits(client, this.options.batchSize);
          return { count: deleted, next: deleted < this.options.batchSize ? null : true };
        });
        const redactedJobs = await this.inBatches('redacted_jobs', signal, (cursor: EndedJobCursor | null) =>
          this.restingAfter(signal, async () => {
            const batch = await redactEndedJobs(client, this.options.periods.redactInputs, this.options.redactionBatchSize, cursor);
            return { count: batch.redacted, next: batch.next };
          }),
        );
        const inputImages = await this.inBatches('input_images', signal, (cursor: EndedJobCursor | null) =>
          this.restingAfter(signal, () => this.removeExpiredInputImages(client, cursor)),
        );
        const pruned = { outbox, jobEvents, quotaHits, redactedJobs, inputImages };
        if (Object.values(pruned).some((count) => count > 0)) this.options.logger.info(pruned, 'retention pruned history');
        return { outbox, job_events: jobEvents, quota_hits: quotaHits, redacted_jobs: redactedJobs, input_images: inputImages };
      } finally {
        await unlockRetention(client).catch(() => {
          healthy = false; // the session, and with it the lock, goes with the connection
        });
      }
    } catch (error) {
      healthy = false;
      throw error;
    } finally {
      client.release(!healthy);
    }
  }

  /**
   * A batch of the redaction or image step, then a rest at least as long as it took (the pause
   * between batches counted in): these rewrite whole rows and call media per image, so a batch
   * costs more than a delete, and a backlog of them must not take more than half of the pruner's
   * connection — the hot path keeps the rest of the machine (`npm run bench:retention`).
   */
  private async restingAfter<T>(signal: AbortSignal, batch: () => Promise<T>): Promise<T> {
    const startedAt = performance.now();
    const result = await batch();
    const rest = performance.now() - startedAt - this.options.batchPauseMs;
    if (rest > 0 && !signal.aborted) await sleep(rest, undefined, { signal }).catch(() => undefined);
    return result;
  }

  /**
   * One batch of input images: each asked of media in turn, its outcome written on its jobs.
   * Answers the images deleted, or null (the step ends) when media cannot answer.
   */
  private async removeExpiredInputImages(client: Queryable, cursor: EndedJobCursor | null): Promise<SweptBatch<EndedJobCursor> | null> {
    const remover = this.options.inputImages;
    if (!remover) return null;
    const { images, next } = await selectExpiredInputImages(
      client,
      this.options.periods.deleteInputImage,
      this.options.redactionBatchSize,
      cursor,
    );
    const removed: string[] = [];
    const kept: string[] = [];
    let deleted = 0;
    let failed = false;
    for (const image of images) {
      let outcome;
      try {
        outcome = await remover.removeExpiredInput(image.assetId, image.ownerUserId);
      } catch (error) {
        this.options.logger.warn(
          { err: error, assetId: image.assetId },
          'media could not delete an expired input image; the next run asks again',
        );
        failed = true;
        break;
      }
      if (outcome === 'deleted' || outcome === 'gone') removed.push(image.assetId);
      else if (outcome === 'in_use_by_post') kept.push(image.assetId);
      // in_use_by_job: that job keeps it; once it has ended a period ago the image is due again.
      if (outcome === 'deleted') deleted += 1;
    }
    await markInputImagesRemoved(client, removed);
    await markInputImagesKept(client, kept);
    if (failed) return deleted > 0 ? { count: deleted, next: null } : null;
    return { count: deleted, next };
  }

  /** One table, in batches from its start with a pause between two, until nothing is due or the signal aborts. */
  private inBatches<C>(table: RetentionTable, signal: AbortSignal, batch: (cursor: C | null) => Promise<SweptBatch<C> | null>) {
    return sweepInBatches(batch, { signal, pauseMs: this.options.batchPauseMs, onBatch: (count) => this.options.onPruned?.(table, count) });
  }
}
