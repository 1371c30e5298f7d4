import type { Queryable } from '@atelier/db';
import type { JobRow, OutboxSubjects } from '../job-row.js';
import {
  CLAIMED_OUTBOX_JOIN,
  FOUND_COLUMNS,
  LIFECYCLE_OUTBOX,
  productEventParamsAt,
  productEventValues,
  statusIs,
} from './transition-sql.js';
import { transitionResultOf, type FoundColumns, type TransitionResult } from './found-job-row.js';

/** One worker reporting one finished job. */
export interface CompleteRequest {
  jobId: string;
  workerId: string;
  /** The stored output, or null for a job type without one. */
  outputAssetId: string | null;
  /** Who owns the output asset (media says); must be the job's user. Null without an output. */
  outputOwnerId: string | null;
  /** The output asset's SHA-256 as media recorded it (lower-case hex); null or absent without one. */
  outputSha256?: string | null;
}

/**
 * running → succeeded under each caller's lease, with the output, the event and the announcement,
 * for many completions in one statement. A completion applies only when the output fits the job:
 * given exactly when the job type has one, and owned by the job's user. Answers, per request and
 * in request order, the succeeded row or the job as found.
 */
export async function complete(db: Queryable, requests: readonly CompleteRequest[], subjects: OutboxSubjects): Promise<TransitionResult[]> {
  const { rows } = await db.query<JobRow & FoundColumns>({
    name: 'jobs.complete',
    text: `WITH requested AS (
             SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $7::text[]) WITH ORDINALITY
               AS r(job_id, worker_id, output_asset_id, output_owner_id, output_sha256, n)),
           done AS (
             UPDATE jobs.generation_jobs j
                SET status = 'succeeded', progress = 100, completed_at = now(), output_asset_id = r.output_asset_id,
                    output_sha256 = r.output_sha256,
                    lease_owner = NULL, lease_expires_at = NULL, version = j.version + 1, updated_at = now()
               FROM requested r
              WHERE j.id = r.job_id AND ${statusIs('j', 'running')} AND j.lease_owner = r.worker_id
                AND (r.output_asset_id IS NOT NULL) = j.expects_output
                AND (r.output_asset_id IS NULL OR r.output_owner_id = j.user_id)
             RETURNING j.*, r.worker_id AS completed_by),
           event AS (
             INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor)
             SELECT id, 'running', 'succeeded', attempt_count, 'worker:' || completed_by FROM done),
           announce AS (${LIFECYCLE_OUTBOX('done', `$5 || 'succeeded'`, productEventParamsAt(8), '$6')})
           SELECT d.*, claimed.claimed_outbox, ${FOUND_COLUMNS}
             FROM requested r
             LEFT JOIN done d ON d.id = r.job_id AND d.completed_by = r.worker_id
             ${CLAIMED_OUTBOX_JOIN(['announce'], 'd')}
             LEFT JOIN jobs.generation_jobs found ON found.id = r.job_id AND d.id IS NULL
            ORDER BY r.n`,
    values: [
      requests.map((r) => r.jobId),
      requests.map((r) => r.workerId),
      requests.map((r) => r.outputAssetId),
      requests.map((r) => r.outputOwnerId),
      subjects.eventPrefix,
      subjects.claimFor ?? null,
      requests.map((r) => r.outputSha256 ?? null),
      ...productEventValues(subjects),
    ],
  });
  return rows.map(transitionResultOf);
}
