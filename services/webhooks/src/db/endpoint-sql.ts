import { accountDeletionStarted } from '@atelier/account-deletion';
import type { Queryable } from '@atelier/db';
import { AccountDeletedError } from '@atelier/errors';
import { WEBHOOKS_ACCOUNT_DELETIONS } from './account-deletion-sql.js';

export interface EndpointRow {
  id: string;
  user_id: string;
  url: string;
  event_types: string[];
  description: string;
  secret: string;
  created_at: Date;
}

export interface NewEndpoint {
  id: string;
  userId: string;
  url: string;
  eventTypes: readonly string[];
  description: string;
  secret: string;
}

/**
 * Inserts an endpoint unless the user has `limit` already. The count and the insert are one
 * statement under a transaction-scoped advisory lock on the user (the caller's transaction), so
 * two concurrent creates cannot both pass a limit of n with n-1 endpoints stored. Answers the row,
 * or undefined when the limit refused it.
 */
export async function insertEndpointWithinLimit(db: Queryable, endpoint: NewEndpoint, limit: number): Promise<EndpointRow | undefined> {
  await lockUserEndpoints(db, endpoint.userId);
  if (await accountDeletionStarted(db, WEBHOOKS_ACCOUNT_DELETIONS, endpoint.userId)) throw new AccountDeletedError();
  const result = await db.query<EndpointRow>({
    name: 'webhooks.insert_endpoint',
    text: `INSERT INTO webhooks.endpoints (id, user_id, url, event_types, description, secret)
           SELECT $1::uuid, $2::varchar, $3::varchar, $4::text[], $5::varchar, $6::varchar
            WHERE (SELECT count(*) FROM webhooks.endpoints WHERE user_id = $2::varchar) < $7::int
           RETURNING *`,
    values: [endpoint.id, endpoint.userId, endpoint.url, endpoint.eventTypes, endpoint.description, endpoint.secret, limit],
  });
  return result.rows[0];
}

/** The user's endpoints, newest first (at most the per-user limit of them exist). */
export async function selectUserEndpoints(db: Queryable, userId: string): Promise<EndpointRow[]> {
  const result = await db.query<EndpointRow>({
    name: 'webhooks.user_endpoints',
    text: `SELECT * FROM webhooks.endpoints WHERE user_id = $1 ORDER BY created_at DESC, id DESC`,
    values: [userId],
  });
  return result.rows;
}

export async function selectUserEndpoint(db: Queryable, userId: string, endpointId: string): Promise<EndpointRow | undefined> {
  const result = await db.query<EndpointRow>({
    name: 'webhooks.user_endpoint',
    text: `SELECT * FROM webhooks.endpoints WHERE id = $1 AND user_id = $2`,
    values: [endpointId, userId],
  });
  return result.rows[0];
}

/** Deletes an endpoint of the user with its deliveries and attempts (cascade). Answers whether one was. */
export async function deleteUserEndpoint(db: Queryable, userId: string, endpointId: string): Promise<boolean> {
  const result = await db.query({
    name: 'webhooks.delete_endpoint',
    text: `DELETE FROM webhooks.endpoints WHERE id = $1 AND user_id = $2`,
    values: [endpointId, userId],
  });
  return (result.rowCount ?? 0) > 0;
}

/** Serialises one user's endpoint writes until the transaction ends (the limit; an account's deletion). */
export async function lockUserEndpoints(db: Queryable, userId: string): Promise<void> {
  await db.query({ text: `SELECT pg_advisory_xact_lock(hashtextextended('webhooks.endpoints:' || $1, 0))`, values: [userId] });
}
