import type { Queryable } from '@atelier/db';

/**
 * Retention of what users wrote (docs/retention.md; background/retention-pruner.ts runs these).
 * Periods are per job type, passed as two parallel arrays (a job type, its days); a job of a type
 * not in them — no longer shipped — is never redacted and keeps its input image.
 *
 * Each statement is one short transaction over at most `limit` ended jobs, walking them oldest
 * first from a cursor (completed_at, id) — an ended job's completed_at never changes — along a
 * partial index that holds only what is still due (migration 0018).
 */

/** One period per job type, as the statements read it. */
export interface RetentionPeriods {
  jobTypes: string[];
  days: number[];
}

/** Where a batch stopped: the last job it looked at. completed_at as Postgres wrote it (microseconds kept). */
export interface EndedJobCursor {
  completedAt: string;
  id: string;
}

/** What redaction version 1 removes is written out in docs/retention.md; change both together (and the version). */
export const REDACTION_VERSION = 1;

/**
 * Version 1 of a redaction: prompt and negative prompt become '', effective_prompt '' (NULL stays
 * NULL: a job from before migration 0012), and parameters and effective_parameters keep only
 * their number and boolean entries (seed, strength …): every text, list or object, where a user
 * may have written something, goes. The row keeps its shape.
 */
const NUMBERS_AND_BOOLEANS_OF = (column: string) =>
  `(SELECT coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) FROM jsonb_each(${column}) e
     WHERE jsonb_typeof(e.value) IN ('number', 'boolean'))`;

/**
 * Redacts the next `limit` ended jobs past their type's redaction period, after the cursor. A job
 * someone holds is skipped (SKIP LOCKED: the transition trigger lets only retention change an
 * ended job, and an account deletion may be deleting it) and found by the next run. Answers how
 * many were redacted and where the next batch starts (null: the run is done).
 */
export async function redactEndedJobs(
  db: Queryable,
  periods: RetentionPeriods,
  limit: number,
  after: EndedJobCursor | null,
): Promise<{ redacted: number; next: EndedJobCursor | null }> {
  const { rows } = await db.query<{ redacted: number; seen: number; last_at: string | null; last_id: string | null }>({
    name: 'retention.redact_ended_jobs',
    text: `WITH policy AS (SELECT * FROM unnest($1::text[], $2::int[]) AS p(job_type, days)),
           chosen AS (
             SELECT j.id, j.completed_at FROM jobs.generation_jobs j JOIN policy p ON p.job_type = j.job_type
              WHERE j.redaction_version IS NULL AND j.completed_at IS NOT NULL
                AND j.completed_at < now() - make_interval(days => (SELECT min(days) FROM policy))
                AND j.completed_at < now() - make_interval(days => p.days)
                AND (j.completed_at, j.id) > (coalesce($3::timestamptz, '-infinity'), coalesce($4::uuid, '00000000-0000-0000-0000-000000000000'))
              ORDER BY j.completed_at, j.id
              LIMIT $5
              FOR UPDATE OF j SKIP LOCKED),
           redacted AS (
             UPDATE jobs.generation_jobs j
                SET prompt = '', negative_prompt = '',
                    effective_prompt = CASE WHEN j.effective_prompt IS NULL THEN NULL ELSE '' END,
                    parameters = ${NUMBERS_AND_BOOLEANS_OF('j.parameters')},
                    effective_parameters = CASE WHEN j.effective_parameters IS NULL THEN NULL
                                                ELSE ${NUMBERS_AND_BOOLEANS_OF('j.effective_parameters')} END,
                    redaction_version = ${REDACTION_VERSION}, redacted_at = now()
               FROM chosen c WHERE j.id = c.id
             RETURNING j.id)
           SELECT (SELECT count(*)::int FROM redacted) AS redacted,
                  (SELECT count(*)::int FROM chosen) AS seen,
                  last.completed_at::text AS last_at, last.id AS last_id
             FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT completed_at, id FROM chosen ORDER BY completed_at DESC, id DESC LIMIT 1) last ON true`,
    values: [periods.jobTypes, periods.days, after?.completedAt ?? null, after?.id ?? null, limit],
  });
  const row = rows[0]!;
  const next = row.seen < limit || row.last_at === null ? null : { completedAt: row.last_at, id: row.last_id! };
  return { redacted: row.redacted, next };
}

/** An input image retention may delete: no post known to hold it yet (media asks community). */
export interface ExpiredInputImage {
  assetId: string;
  ownerUserId: string;
}

/**
 * The input images of the next `limit` ended jobs past their type's image period, after the
 * cursor — those no other job still keeps: a job using the same image that has not ended, or
 * ended less than its own type's period ago (or of a type no longer shipped). An image found in a
 * post is asked about again a period after (input_kept_at): the post may be gone by then.
 */
export async function selectExpiredInputImages(
  db: Queryable,
  periods: RetentionPeriods,
  limit: number,
  after: EndedJobCursor | null,
): Promise<{ images: ExpiredInputImage[]; next: EndedJobCursor | null }> {
  const { rows } = await db.query<{
    asset_id: string | null;
    owner_user_id: string | null;
    seen: number;
    last_at: string | null;
    last_id: string | null;
  }>({
    name: 'retention.select_expired_input_images',
    text: `WITH policy AS (SELECT * FROM unnest($1::text[], $2::int[]) AS p(job_type, days)),
           scanned AS (
             SELECT j.id, j.completed_at, j.input_asset_id, j.user_id FROM jobs.generation_jobs j JOIN policy p ON p.job_type = j.job_type
              WHERE j.input_asset_id IS NOT NULL AND j.input_removed_at IS NULL AND j.completed_at IS NOT NULL
                AND j.completed_at < now() - make_interval(days => (SELECT min(days) FROM policy))
                AND j.completed_at < now() - make_interval(days => p.days)
                AND (j.input_kept_at IS NULL OR j.input_kept_at < now() - make_interval(days => p.days))
                AND (j.completed_at, j.id) > (coalesce($3::timestamptz, '-infinity'), coalesce($4::uuid, '00000000-0000-0000-0000-000000000000'))
              ORDER BY j.completed_at, j.id
              LIMIT $5),
           expired AS (
             SELECT s.input_asset_id, s.user_id, min(s.completed_at) AS first_ended FROM scanned s
              WHERE NOT EXISTS (
                SELECT 1 FROM jobs.generation_jobs k LEFT JOIN policy q ON q.job_type = k.job_type
                 WHERE k.input_asset_id = s.input_asset_id
                   AND (k.completed_at IS NULL OR q.days IS NULL OR k.completed_at >= now() - make_interval(days => q.days)))
              GROUP BY s.input_asset_id, s.user_id)
           SELECT e.input_asset_id AS asset_id, e.user_id AS owner_user_id,
                  (SELECT count(*)::int FROM scanned) AS seen, last.completed_at::text AS last_at, last.id AS last_id
             FROM (SELECT 1) one
             LEFT JOIN LATERAL (SELECT completed_at, id FROM scanned ORDER BY completed_at DESC, id DESC LIMIT 1) last ON true
             LEFT JOIN expired e ON true
            ORDER BY e.first_ended, e.input_asset_id`,
    values: [periods.jobTypes, periods.days, after?.completedAt ?? null, after?.id ?? null, limit],
  });
  const first = rows[0]!;
  const images = rows.filter((row) => row.asset_id !== null).map((row) => ({ assetId: row.asset_id!, ownerUserId: row.owner_user_id! }));
  const next = first.seen < limit || first.last_at === null ? null : { completedAt: first.last_at, id: first.last_id! };
  return { images, next };
}

/**
 * The images are gone: every ended job that used one says so (input_removed_at), once. A batch's
 * outcomes are written together; a run cut short before this asks media again, which answers GONE.
 */
export async function markInputImagesRemoved(db: Queryable, assetIds: readonly string[]): Promise<void> {
  if (assetIds.length === 0) return;
  await db.query({
    name: 'retention.mark_inputs_removed',
    text: `UPDATE jobs.generation_jobs SET input_removed_at = now()
            WHERE input_asset_id = ANY($1::uuid[]) AND input_removed_at IS NULL AND completed_at IS NOT NULL`,
    values: [assetIds],
  });
}

/** Posts show these images: they stay, and are asked about again a period from now. */
export async function markInputImagesKept(db: Queryable, assetIds: readonly string[]): Promise<void> {
  if (assetIds.length === 0) return;
  await db.query({
    name: 'retention.mark_inputs_kept',
    text: `UPDATE jobs.generation_jobs SET input_kept_at = now()
            WHERE input_asset_id = ANY($1::uuid[]) AND input_removed_at IS NULL AND completed_at IS NOT NULL`,
    values: [assetIds],
  });
}
