import { Migration } from '@atelier/orm';

/**
 * What a job is run with, recorded at create (domain/effective-parameters.ts): the model's
 * default_parameters merged under the user's parameters, and the user's prompt joined with the
 * style's prompt preset. The worker sends these to the vendor; `parameters` and `prompt` stay the
 * user's own request (the idempotency hash is of the request). NULL for every job created before
 * this migration: those run with `parameters` and `prompt`, as they always did.
 *
 * effective_prompt holds a prompt (≤ 10000), ", " and a style's preset (≤ 2000).
 * Two nullable columns without a default: no table rewrite, a brief lock.
 */
export class EffectiveInput extends Migration {
  override up(): void {
    this.addSql(`
      ALTER TABLE jobs.generation_jobs
        ADD COLUMN IF NOT EXISTS effective_parameters jsonb,
        ADD COLUMN IF NOT EXISTS effective_prompt varchar(12002)`);
  }
}
