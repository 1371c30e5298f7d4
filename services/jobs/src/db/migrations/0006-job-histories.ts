import { Migration } from '@atelier/orm';

/**
 * What remains of a terminal job's job_events once retention prunes them: its transitions as the
 * user's view needs them — [from, to, attempt, error code, epoch ms] each, in order, the very
 * tuples GetJob computes the timings from — in one row. The audit detail (actors, worker ids,
 * details, error classes) goes with the events. Written in the statement that deletes them
 * (db/retention-sql.ts), so a job has its events or its history, never neither.
 */
export class JobHistories extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE jobs.job_histories (
        job_id      uuid        PRIMARY KEY REFERENCES jobs.generation_jobs (id) ON DELETE CASCADE,
        history     jsonb       NOT NULL CONSTRAINT job_histories_history_array CHECK (jsonb_typeof(history) = 'array'),
        archived_at timestamptz NOT NULL DEFAULT now()
      )`);
  }
}
