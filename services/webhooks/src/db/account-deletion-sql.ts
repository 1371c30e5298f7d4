import { accountDeletionsTable } from '@atelier/account-deletion';
import type { Queryable } from '@atelier/db';

/** webhooks.account_deletions: webhooks' part of deleting a user's account (endpoints removed, when done). */
export const WEBHOOKS_ACCOUNT_DELETIONS = accountDeletionsTable('webhooks');

/**
 * Deletes up to `limit` of the user's endpoints (their deliveries and attempts go with them, ON
 * DELETE CASCADE; a delivery being sent just then finds its endpoint gone and records nothing).
 * Answers how many: 0 when none is left.
 */
export async function deleteEndpointsOfUser(db: Queryable, userId: string, limit: number): Promise<number> {
  const { rowCount } = await db.query({
    name: 'webhooks.delete_endpoints_of_user',
    text: `DELETE FROM webhooks.endpoints
            WHERE id IN (SELECT id FROM webhooks.endpoints WHERE user_id = $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    values: [userId, limit],
  });
  return rowCount ?? 0;
}

/** Finds an endpoint of the user ($1) while one is left. */
export const ENDPOINT_OF_USER_SQL = `SELECT 1 FROM webhooks.endpoints WHERE user_id = $1`;
