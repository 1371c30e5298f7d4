import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import type { AccountDeleted } from '@atelier/nats';
import {
  deleteFinishedJobsOfUser,
  markJobsPartCompleted,
  selectAccountDeletion,
  selectInFlightJobIdsOfUser,
} from '../db/account-deletion-sql.js';
import { deleteQuotaHitsOfUser } from '../db/quota-hits-sql.js';
import { cancel } from '../db/transitions/cancel-sql.js';
import type { OutboxSubjects } from '../db/job-row.js';
import { announce, type AnnounceTargets } from '../announce/announce.js';

const BATCH = 200;

/**
 * The jobs service's part of deleting an account, run by its AccountDeletionConsumer: every job
 * in flight is cancelled through the cancel transition (a running attempt stops within a second,
 * a prediction is cancelled at the vendor by a worker), then every job of the user is deleted
 * with its events and history, and the record of the quota refusals they met (the overview's). Each step finds only what is left, so a run cut short resumes.
 */
export function jobsAccountDeletion(context: AnnounceTargets & { pool: SqlPool; outboxSubjects(): OutboxSubjects; logger: Logger }) {
  return async (event: AccountDeleted): Promise<void> => {
    const { pool } = context;
    const request = await selectAccountDeletion(pool, event.userId);
    // Events are only hints: anyone able to publish on the subject could forge one.
    if (request?.deletion_id !== event.deletionId) {
      context.logger.warn({ deletionId: event.deletionId }, 'an account deletion event jobs has no request for: ignoring it');
      return;
    }
    if (request.jobs_completed_at) return;
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
    while ((await deleteFinishedJobsOfUser(pool, event.userId, BATCH)) > 0);
    await deleteQuotaHitsOfUser(pool, event.userId);
    // A job still there (locked by a transition that committed it running after the sweep): again, later.
    if (!(await markJobsPartCompleted(pool, event.userId))) throw new Error('jobs of the account remain; deleting again');
  };
}
