import { accountDeletionsTable, rowsOfUser } from '@atelier/account-deletion';

/** webhooks.account_deletions: webhooks' part of deleting a user's account (endpoints removed, when done). */
export const WEBHOOKS_ACCOUNT_DELETIONS = accountDeletionsTable('webhooks');

/**
 * The user's endpoints: their deliveries and attempts go with them (ON DELETE CASCADE; a delivery
 * being sent just then finds its endpoint gone and records nothing).
 */
export const ENDPOINTS_OF_USER = rowsOfUser({ table: 'webhooks.endpoints', userColumn: 'user_id' });
