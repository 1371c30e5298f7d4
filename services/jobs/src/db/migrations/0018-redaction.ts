import { Migration } from '@atelier/orm';

/**
 * Retention of what users wrote (docs/retention.md): the prompts and effective inputs of ended jobs
 * are redacted after their job type's redactInputsAfterDays, and their input image deleted after
 * deleteInputImageAfterDays unless a post or a newer job uses it.
 *
 *   - redaction_version / redacted_at: what was removed (version 1, db/redaction-sql.ts) and when;
 *     both NULL for a job not redacted. The row keeps its shape: columns are emptied, not dropped.
 *   - input_removed_at: when the job's input image was deleted (or found already gone).
 *   - input_kept_at: when the image was last found in a post and kept; asked again a retention
 *     period later (the post may be gone by then).
 *
 * Terminal jobs never change (the transition trigger): the trigger now lets exactly these
 * retention updates through — a change of a terminal row that touches nothing but the redacted
 * columns and the four above: either a note about the input image (nothing the user wrote
 * changes), or a redaction — once, the prompts emptied, with its version and time. A redaction
 * is never undone or redone.
 *
 * Shaped as 0010 for a populated table taking writes: nullable columns without default (no
 * rewrite), CHECKs NOT VALID then validated, the pruner's partial indexes built CONCURRENTLY
 * (each holds only what is still due, so it shrinks as the backlog goes).
 */
export class Redaction extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override up(): void {
    this.addSql(`
      ALTER TABLE jobs.generation_jobs
        ADD COLUMN IF NOT EXISTS redaction_version smallint,
        ADD COLUMN IF NOT EXISTS redacted_at timestamptz,
        ADD COLUMN IF NOT EXISTS input_removed_at timestamptz,
        ADD COLUMN IF NOT EXISTS input_kept_at timestamptz`);
    this.addSql(`ALTER TABLE jobs.generation_jobs DROP CONSTRAINT IF EXISTS generation_jobs_redaction_pair`);
    this.addSql(`
      ALTER TABLE jobs.generation_jobs ADD CONSTRAINT generation_jobs_redaction_pair
        CHECK ((redaction_version IS NULL) = (redacted_at IS NULL) AND (redaction_version IS NULL OR redaction_version >= 1)) NOT VALID`);
    this.addSql(`ALTER TABLE jobs.generation_jobs VALIDATE CONSTRAINT generation_jobs_redaction_pair`);
    this.addSql(`
      CREATE OR REPLACE FUNCTION jobs.refuse_illegal_job_transition() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        unchanged jobs.generation_jobs;
      BEGIN
        IF OLD.status IN ('succeeded', 'failed', 'cancelled') THEN
          -- NEW with the retention columns put back as they were must be OLD: nothing else changed
          -- (a row comparison, so a column added later is protected without being named here).
          unchanged := NEW;
          unchanged.prompt := OLD.prompt;
          unchanged.negative_prompt := OLD.negative_prompt;
          unchanged.effective_prompt := OLD.effective_prompt;
          unchanged.parameters := OLD.parameters;
          unchanged.effective_parameters := OLD.effective_parameters;
          unchanged.redaction_version := OLD.redaction_version;
          unchanged.redacted_at := OLD.redacted_at;
          unchanged.input_removed_at := OLD.input_removed_at;
          unchanged.input_kept_at := OLD.input_kept_at;
          IF unchanged IS NOT DISTINCT FROM OLD AND (
               -- a note about the input image: what the user wrote, and its redaction, unchanged
               ((NEW.prompt, NEW.negative_prompt, NEW.effective_prompt, NEW.parameters, NEW.effective_parameters, NEW.redaction_version, NEW.redacted_at)
                  IS NOT DISTINCT FROM (OLD.prompt, OLD.negative_prompt, OLD.effective_prompt, OLD.parameters, OLD.effective_parameters, OLD.redaction_version, OLD.redacted_at))
               -- a redaction, once: the prompts emptied, with its version and time
            OR (OLD.redaction_version IS NULL AND NEW.redaction_version IS NOT NULL AND NEW.redacted_at IS NOT NULL
                AND NEW.prompt = '' AND NEW.negative_prompt = '' AND coalesce(NEW.effective_prompt, '') = '')) THEN
            RETURN NEW; -- retention: a redaction, or a note about the input image
          END IF;
          RAISE EXCEPTION 'job % is % and can no longer change', OLD.id, OLD.status
            USING ERRCODE = 'check_violation', CONSTRAINT = 'generation_jobs_transition';
        END IF;
        IF NEW.status <> OLD.status AND (OLD.status, NEW.status) NOT IN (
             ('queued', 'running'), ('running', 'succeeded'), ('running', 'failed'),
             ('running', 'queued'), ('queued', 'cancelled'), ('running', 'cancelled')) THEN
          RAISE EXCEPTION 'illegal job transition % -> % for job %', OLD.status, NEW.status, OLD.id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'generation_jobs_transition';
        END IF;
        RETURN NEW;
      END $$`);
    this.addSql(`DROP INDEX CONCURRENTLY IF EXISTS jobs.generation_jobs_redaction_due_idx`);
    this.addSql(`
      CREATE INDEX CONCURRENTLY generation_jobs_redaction_due_idx ON jobs.generation_jobs (completed_at, id)
        WHERE redaction_version IS NULL AND completed_at IS NOT NULL`);
    this.addSql(`DROP INDEX CONCURRENTLY IF EXISTS jobs.generation_jobs_input_due_idx`);
    this.addSql(`
      CREATE INDEX CONCURRENTLY generation_jobs_input_due_idx ON jobs.generation_jobs (completed_at, id)
        WHERE input_asset_id IS NOT NULL AND input_removed_at IS NULL AND completed_at IS NOT NULL`);
    // Who else uses an input image (a newer job keeps it): a handful of rows per asset.
    this.addSql(`DROP INDEX CONCURRENTLY IF EXISTS jobs.generation_jobs_input_asset_idx`);
    this.addSql(`
      CREATE INDEX CONCURRENTLY generation_jobs_input_asset_idx ON jobs.generation_jobs (input_asset_id)
        WHERE input_asset_id IS NOT NULL`);
  }
}
