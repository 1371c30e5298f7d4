import { Migration } from '@atelier/orm';

/**
 * The SHA-256 of a succeeded job's output, lower-case hex, copied at completion from the asset
 * media checked (rpc/complete-job.ts): operators and users see which bytes the job produced, and a
 * second completion with the same output (a worker that retried its CompleteJobs after the first
 * one landed) is recognised as the same rather than refused. NULL for a job without an output and
 * for every job completed before this migration. A nullable column without a default (no table
 * rewrite); its CHECK added NOT VALID and validated afterwards (a scan that blocks no writes).
 */
export class OutputSha256 extends Migration {
  override up(): void {
    this.addSql(`ALTER TABLE jobs.generation_jobs ADD COLUMN IF NOT EXISTS output_sha256 char(64)`);
    this.addSql(`ALTER TABLE jobs.generation_jobs DROP CONSTRAINT IF EXISTS generation_jobs_output_sha256_hex`);
    this.addSql(`
      ALTER TABLE jobs.generation_jobs ADD CONSTRAINT generation_jobs_output_sha256_hex
        CHECK (output_sha256 ~ '^[0-9a-f]{64}$') NOT VALID`);
    this.addSql(`ALTER TABLE jobs.generation_jobs VALIDATE CONSTRAINT generation_jobs_output_sha256_hex`);
  }
}
