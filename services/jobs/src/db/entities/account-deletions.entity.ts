import { defineEntity, p } from '@atelier/orm';

/** jobs.account_deletions: one row per user whose account's deletion was requested, and the jobs part's progress. */
export const AccountDeletionEntity = defineEntity({
  name: 'AccountDeletion',
  tableName: 'account_deletions',
  properties: {
    userId: p.string().length(128).primary(),
    deletionId: p.uuid().unique('account_deletions_deletion_id_key'),
    requestedAt: p.datetime().defaultRaw('now()'),
    jobsCompletedAt: p.datetime().nullable(),
    jobsRemoved: p.integer().default(0),
  },
  checks: [{ name: 'account_deletions_jobs_removed_positive', expression: 'jobs_removed >= 0' }],
});
