import { Migration } from '@atelier/orm';

/**
 * A job's output is the ai_output asset whose idempotency key is the job id (the worker's put is
 * keyed so). When a job fails or is cancelled, media deletes it by that key alone — the lifecycle
 * event carries the job id, not the owner — so the lookup needs its own index.
 */
export class AiOutputByJob extends Migration {
  override up(): void {
    this.addSql(`
      CREATE INDEX assets_ai_output_job_idx ON media.assets (idempotency_key)
        WHERE purpose = 'ai_output' AND status <> 'deleted'`);
  }
}
