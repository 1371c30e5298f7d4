import { accountDeletionOf } from '@atelier/account-deletion';
import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import { ENDPOINTS_OF_USER, WEBHOOKS_ACCOUNT_DELETIONS } from '../db/account-deletion-sql.js';
import { lockUserEndpoints } from '../db/endpoint-sql.js';

/**
 * Webhooks' part of deleting an account, run by its AccountDeletionConsumer: from the first step
 * on the user's new endpoints are refused (under the endpoint lock their creation takes), then
 * every endpoint of theirs goes, with its deliveries and attempts.
 */
export function webhooksAccountDeletion(context: { pool: SqlPool; logger: Logger }) {
  return accountDeletionOf(
    {
      service: 'webhooks',
      table: WEBHOOKS_ACCOUNT_DELETIONS,
      lockUser: lockUserEndpoints,
      ...ENDPOINTS_OF_USER,
      batchSize: 100,
      remains: 'endpoints of the account remain (one was being changed)',
    },
    context,
  );
}
