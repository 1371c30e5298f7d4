import type { Queryable } from '@atelier/db';
import { FOUND_COLUMNS, statusIs } from './transition-sql.js';
import { transitionResultOf, type FoundColumns, type TransitionResult } from './found-job-row.js';

/**
 * Remembers the provider's request id before the worker polls it (L2 of "never twice"). Setting
 * the same id again changes nothing and still answers the row; a different id once one is set,
 * or a caller without the lease, answers the job as found. A unique violation
 * (generation_jobs_provider_request_key) means another job recorded that id.
 */
export async function updateProviderRequest(
  db: Queryable,
  request: { jobId: string; workerId: string; providerRequestId: string },
): Promise<TransitionResult<{ id: string | null }>> {
  const { rows } = await db.query<{ id: string | null } & FoundColumns>({
    name: 'jobs.record_provider_request',
    text: `WITH recorded AS (
             UPDATE jobs.generation_jobs j
                SET provider_request_id = $3, updated_at = now()
              WHERE j.id = $1 AND ${statusIs('j', 'running')} AND j.lease_owner = $2
                AND (j.provider_request_id IS NULL OR j.provider_request_id = $3)
             RETURNING j.id)
           SELECT r.id, ${FOUND_COLUMNS}
             FROM (SELECT 1) one
             LEFT JOIN recorded r ON true
             LEFT JOIN jobs.generation_jobs found ON found.id = $1 AND r.id IS NULL`,
    values: [request.jobId, request.workerId, request.providerRequestId],
  });
  return transitionResultOf(rows[0]!);
}
