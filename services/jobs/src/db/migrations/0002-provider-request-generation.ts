import { Migration } from '@atelier/orm';

/**
 * How many provider requests a job has given up. It makes the provider idempotency key move on
 * after a failed prediction (job id, then job id:1, …) while a crashed attempt that resubmits
 * still reaches the same prediction. provider_request_id is cleared whenever it grows.
 */
export class ProviderRequestGeneration extends Migration {
  override up(): void {
    this.addSql(`
      ALTER TABLE jobs.generation_jobs
        ADD COLUMN provider_request_generation smallint NOT NULL DEFAULT 0
          CONSTRAINT generation_jobs_provider_request_generation_positive CHECK (provider_request_generation >= 0)`);
  }
}
