import { Migration } from '@atelier/orm';

/**
 * A queued job's position counts the jobs ahead of it in the order they are dispatched: by due
 * time, age and id within its queue. `priority` never ordered dispatch — the doorbells reach the
 * workers in the order the outbox publishes them — so the position no longer ranks by it, and the
 * position index drops it. The column stays (always 0 for new jobs, still in the Job message,
 * marked deprecated) so that a release still running beside this one keeps writing it.
 *
 * Built CONCURRENTLY, outside a transaction, as 0005: each statement on its own, and a failed
 * build's INVALID index is dropped first.
 */
export class QueuePositionInDispatchOrder extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override up(): void {
    this.addSql(`DROP INDEX CONCURRENTLY IF EXISTS jobs.generation_jobs_dispatch_order_idx`);
    this.addSql(`
      CREATE INDEX CONCURRENTLY generation_jobs_dispatch_order_idx
        ON jobs.generation_jobs (queue, next_attempt_at, created_at, id)
        WHERE status = 'queued'`);
    this.addSql(`DROP INDEX CONCURRENTLY IF EXISTS jobs.generation_jobs_queue_position_idx`);
  }
}
