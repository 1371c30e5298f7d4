import { Migration } from '@atelier/orm';

/**
 * Indexes that keep the hot statements flat as the history grows (bench/scale.ts: 10 k → 1 M jobs):
 *   - the quota's in-flight count (db/transitions/create-sql.ts) read every job of the user through
 *     generation_jobs_user_created_idx to find the few queued or running ones; and the metrics'
 *     queue depth (db/queue-stats-sql.ts) scanned the whole table for them. An index of the in-flight
 *     rows only, by user, serves both and stays as small as the live set.
 *   - a queued job's position (db/job-view-sql.ts) counted the jobs ahead with a heap visit each to
 *     check their queue. With the queue leading the claim-order key, both counts are index range
 *     scans with every condition in the index (index-only where the pages are all-visible); it
 *     replaces generation_jobs_queued_idx, whose other reader (the stale-dispatch sweep) scans
 *     the queued rows either way.
 *
 * Built CONCURRENTLY so a populated table keeps taking writes meanwhile, which cannot run inside a
 * transaction: this migration runs outside one (each statement on its own). A build that fails
 * leaves an INVALID index behind, so each is dropped first: a run after a failure starts clean.
 */
export class InFlightAndQueuePositionIndexes extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override up(): void {
    this.addSql(`DROP INDEX CONCURRENTLY IF EXISTS jobs.generation_jobs_in_flight_user_idx`);
    this.addSql(`
      CREATE INDEX CONCURRENTLY generation_jobs_in_flight_user_idx ON jobs.generation_jobs (user_id)
        WHERE status IN ('queued', 'running')`);
    this.addSql(`DROP INDEX CONCURRENTLY IF EXISTS jobs.generation_jobs_queue_position_idx`);
    this.addSql(`
      CREATE INDEX CONCURRENTLY generation_jobs_queue_position_idx
        ON jobs.generation_jobs (queue, priority DESC, next_attempt_at, created_at, id)
        WHERE status = 'queued'`);
    this.addSql(`DROP INDEX CONCURRENTLY IF EXISTS jobs.generation_jobs_queued_idx`);
  }
}
