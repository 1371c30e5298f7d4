import { defineEntity, p } from '@atelier/orm';

/** webhooks.account_deletions: webhooks' part of deleting a user's account (endpoints removed, when done). */
export const AccountDeletionEntity = defineEntity({
  name: 'AccountDeletion',
  tableName: 'account_deletions',
  properties: {
    userId: p.string().length(128).primary(),
    deletionId: p.uuid(),
    startedAt: p.datetime().defaultRaw('now()'),
    completedAt: p.datetime().nullable(),
    removed: p.integer().default(0),
  },
  checks: [{ name: 'account_deletions_removed_positive', expression: 'removed >= 0' }],
});
