import { accountDeletionPartOf, selectAccountDeletion } from '@atelier/account-deletion';
import type { jobsV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import { JOBS_ACCOUNT_DELETIONS } from '../db/account-deletion-sql.js';
import type { JobsContext } from '../jobs-context.js';

type GetAccountDeletion = Handler<typeof jobsV1.JobsServiceService.getAccountDeletion>;

/** The request (if any) and the jobs part of it; the other services answer for theirs. */
export function getAccountDeletion(context: JobsContext): GetAccountDeletion {
  return async (request) => {
    const userId = requireUserId(request.userId, 'user_id');
    const row = await selectAccountDeletion(context.pool, JOBS_ACCOUNT_DELETIONS, userId);
    return { deletionId: row?.deletion_id, requestedAt: row?.started_at, jobs: accountDeletionPartOf(row) };
  };
}
