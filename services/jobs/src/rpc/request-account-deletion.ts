import type { jobsV1 } from '@atelier/contracts';
import { inTransaction, uuidv7 } from '@atelier/db';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import { insertAccountDeletion } from '../db/account-deletion-sql.js';
import type { JobsContext } from '../jobs-context.js';

type RequestAccountDeletion = Handler<typeof jobsV1.JobsServiceService.requestAccountDeletion>;

/**
 * Starts deleting the user's account: the request and its AccountDeletedEvent, in one
 * transaction (db/account-deletion-sql.ts); the relay publishes the event, every service's
 * consumer deletes its part. A repeat answers the first request and publishes nothing new.
 */
export function requestAccountDeletion(context: JobsContext): RequestAccountDeletion {
  return async (request) => {
    const userId = requireUserId(request.userId, 'user_id');
    const row = await inTransaction(context.pool, (client) =>
      insertAccountDeletion(client, { userId, deletionId: uuidv7(), subject: context.subjects.accountDeleted }),
    );
    if (row.created) context.onOutboxWrite();
    return { deletionId: row.deletion_id, requestedAt: row.requested_at, created: row.created };
  };
}
