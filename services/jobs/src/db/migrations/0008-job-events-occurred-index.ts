import { Migration } from '@atelier/orm';

/**
 * The operators' overview (db/overview-sql.ts) reads the job_events of the last 1–24 h: without an
 * index on their time it scanned every event retention keeps (90 days by default; 575 ms on 2 M
 * events against 100 ms with it). Events are appended in time order, so the index grows at its
 * right edge only.
 *
 * Built CONCURRENTLY, outside a transaction, as 0005: each statement on its own, and a failed
 * build's INVALID index is dropped first.
 */
export class JobEventsOccurredIndex extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override up(): void {
    this.addSql(`DROP INDEX CONCURRENTLY IF EXISTS jobs.job_events_occurred_idx`);
    this.addSql(`CREATE INDEX CONCURRENTLY job_events_occurred_idx ON jobs.job_events (occurred_at)`);
  }
}
