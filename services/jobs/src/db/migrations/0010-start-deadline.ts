import { Migration } from '@atelier/orm';

/**
 * A job's start deadline (CreateJob's start_within_seconds): the moment after which no worker may
 * start it. The claim refuses a job past it and the start-deadline sweep ends such jobs
 * (domain/start-deadline.ts). NULL: no deadline, as for every job created before this migration.
 *
 * Shaped to leave a populated table taking writes, so it runs outside a transaction, each
 * statement on its own, as 0005: the column is added without a default (no rewrite, a brief
 * lock); its CHECK is added NOT VALID and validated afterwards (a scan that blocks no writes); the
 * sweep's index is built CONCURRENTLY. Every step can run again after a failure (IF NOT EXISTS,
 * the constraint and the INVALID index a failed build leaves are dropped first).
 *
 * The sweep's index holds only the jobs it may end: queued, never attempted, with a deadline —
 * a job queued again after a failed attempt leaves it.
 */
export class StartDeadline extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override up(): void {
    this.addSql(`ALTER TABLE jobs.generation_jobs ADD COLUMN IF NOT EXISTS start_deadline_at timestamptz`);
    this.addSql(`ALTER TABLE jobs.generation_jobs DROP CONSTRAINT IF EXISTS generation_jobs_start_deadline_after_created`);
    this.addSql(`
      ALTER TABLE jobs.generation_jobs ADD CONSTRAINT generation_jobs_start_deadline_after_created
        CHECK (start_deadline_at IS NULL OR start_deadline_at > created_at) NOT VALID`);
    this.addSql(`ALTER TABLE jobs.generation_jobs VALIDATE CONSTRAINT generation_jobs_start_deadline_after_created`);
    this.addSql(`DROP INDEX CONCURRENTLY IF EXISTS jobs.generation_jobs_start_deadline_idx`);
    this.addSql(`
      CREATE INDEX CONCURRENTLY generation_jobs_start_deadline_idx ON jobs.generation_jobs (start_deadline_at)
        WHERE status = 'queued' AND attempt_count = 0 AND start_deadline_at IS NOT NULL`);
  }
}
