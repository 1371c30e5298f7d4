import { accountDeletionOf, type AccountDeleted } from '@atelier/account-deletion';
import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import { JOBS_ACCOUNT_DELETIONS, JOBS_OF_USER, selectInFlightJobIdsOfUser } from '../db/account-deletion-sql.js';
import type { OutboxSubjects } from '../db/job-row.js';
import { deleteQuotaHitsOfUser } from '../db/quota-hits-sql.js';
import { forgetOwnerOfProviderCalls } from '../db/provider-calls-sql.js';
import { deleteCredentialsOfUser } from '../db/provider-credentials-sql.js';
import { cancel } from '../db/transitions/cancel-sql.js';
import { announce, type AnnounceTargets } from '../announce/announce.js';

const BATCH = 200;

type Context = AnnounceTargets & { pool: SqlPool; outboxSubjects(): OutboxSubjects; logger: Logger };

/**
 * The jobs service's part of deleting an account, run by its AccountDeletionConsumer on the
 * request RequestAccountDeletion recorded: every job in flight is cancelled through the cancel
 * transition (a running attempt stops within a second, a prediction is cancelled at the vendor by
 * a worker), then every job of the user is deleted with its events and history, and lastly the
 * record of the quota refusals they met (the overview's) and the user's own vendor keys; their
 * usage-ledger rows stay, for the money, without their owner (user_id NULL).
 */
export function jobsAccountDeletion(context: Context) {
  return accountDeletionOf(
    {
      service: 'jobs',
      table: JOBS_ACCOUNT_DELETIONS,
      beforeSweep: (event) => cancelJobsInFlight(context, event),
      ...JOBS_OF_USER,
      batchSize: BATCH,
      lastly: async (db, userId) => {
        await deleteQuotaHitsOfUser(db, userId);
        await forgetOwnerOfProviderCalls(db, userId);
        await deleteCredentialsOfUser(db, userId);
      },
      // Locked by a transition that committed it running after the cancel step: again, later.
      remains: 'jobs of the account remain (one was moving on when it was cancelled)',
    },
    context,
  );
}

async function cancelJobsInFlight(context: Context, event: AccountDeleted): Promise<void> {
  const { pool } = context;
  for (
    let ids = await selectInFlightJobIdsOfUser(pool, event.userId, BATCH);
    ids.length > 0;
    ids = await selectInFlightJobIdsOfUser(pool, event.userId, BATCH)
  ) {
    for (const jobId of ids) {
      const result = await cancel(
        pool,
        { jobId, userId: event.userId, actor: 'account-deletion', nonCancellableTypes: [] },
        context.outboxSubjects(),
      );
      if (result.changed) announce(context, 'ended', [result.job]);
    }
  }
}
