import { Migration } from '@atelier/orm';

/**
 * The stale-dispatch sweep asks, for each overdue queued job, whether a dispatch of it is pending
 * or was published lately (redispatchStaleJobs). Published rows stay a day, so without an index
 * that question scans the outbox once per job. Only dispatch rows are indexed: one per attempt.
 */
export class OutboxDispatchByJob extends Migration {
  override up(): void {
    this.addSql(`CREATE INDEX outbox_dispatch_job_idx ON jobs.outbox (aggregate_id) WHERE event_type = 'job.dispatch'`);
  }
}
