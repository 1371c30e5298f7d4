import type { Queryable } from '@atelier/db';
import type { ListingPageCursor } from '@atelier/encoding';

export type DeliveryStatusWord = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: string;
  status: DeliveryStatusWord;
  attempt_count: number;
  schedule_step: number;
  next_attempt_at: Date | null;
  created_at: Date;
  delivered_at: Date | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  status_code: number;
  error: string | null;
}

export interface LifecycleEventToDeliver {
  /** The event's id (its Nats-Msg-Id): with the endpoint, the delivery's natural key. */
  eventId: string;
  eventType: string;
  userId: string;
  body: string;
}

/**
 * One delivery per endpoint of the user that wants the event type, due now. ON CONFLICT DO
 * NOTHING on (endpoint_id, event_id) makes a redelivered event insert nothing new: the first
 * insert's id — the webhook-id — stays the only one. Ids are random (gen_random_uuid); listings
 * order by created_at. Answers how many were created.
 */
export async function insertDeliveriesForEvent(db: Queryable, event: LifecycleEventToDeliver): Promise<number> {
  const result = await db.query({
    name: 'webhooks.insert_deliveries',
    text: `INSERT INTO webhooks.deliveries (id, endpoint_id, event_id, event_type, body, next_attempt_at)
           SELECT gen_random_uuid(), e.id, $1::varchar, $2::varchar, $4::text, now()
             FROM webhooks.endpoints e
            WHERE e.user_id = $3::varchar AND (cardinality(e.event_types) = 0 OR $2::text = ANY(e.event_types))
           ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
    values: [event.eventId, event.eventType, event.userId, event.body],
  });
  return result.rowCount ?? 0;
}

export interface ClaimedDelivery {
  id: string;
  endpoint_id: string;
  url: string;
  secret: string;
  body: string;
  /** The number of this attempt (attempt_count after the claim). */
  attempt_count: number;
  /** Attempts since creation or the last replay, this one included: the retry schedule's index. */
  schedule_step: number;
}

/**
 * Claims up to `limit` due deliveries for one attempt each. FOR UPDATE SKIP LOCKED lets every
 * replica claim at once without taking the same row; pushing next_attempt_at one lease ahead is
 * the lease: a sender that dies before recording the attempt leaves the delivery due again when
 * the lease ends, so none is stranded. attempt_count identifies the claim: recordAttempt only
 * settles the delivery while it is unchanged, so a sender whose lease ran out and was overtaken
 * cannot overwrite the newer claim's outcome.
 */
export async function claimDueDeliveries(db: Queryable, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const result = await db.query<ClaimedDelivery>({
    name: 'webhooks.claim_due',
    text: `WITH due AS (
             SELECT d.id FROM webhooks.deliveries d
              WHERE d.status = 'pending' AND d.next_attempt_at <= now()
              ORDER BY d.next_attempt_at
              LIMIT $1
              FOR UPDATE SKIP LOCKED)
           UPDATE webhooks.deliveries d
              SET attempt_count = d.attempt_count + 1,
                  schedule_step = d.schedule_step + 1,
                  next_attempt_at = now() + make_interval(secs => $2::double precision / 1000)
             FROM due, webhooks.endpoints e
            WHERE d.id = due.id AND e.id = d.endpoint_id
           RETURNING d.id, d.endpoint_id, e.url, e.secret, d.body, d.attempt_count, d.schedule_step`,
    values: [limit, leaseMs],
  });
  return result.rows;
}

export interface AttemptOutcome {
  deliveryId: string;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number;
  error: string | undefined;
  /** Delivered (2xx); otherwise retryInMs, or undefined: the schedule is exhausted, failed. */
  delivered: boolean;
  retryInMs: number | undefined;
}

/**
 * Records an attempt and settles its delivery, in the caller's transaction. The attempt row is
 * written whatever happens next (ON CONFLICT: a repeated record of the same attempt is one row);
 * the delivery changes only while attempt_count is still this attempt's (see claimDueDeliveries).
 */
export async function recordAttempt(db: Queryable, outcome: AttemptOutcome): Promise<void> {
  await db.query({
    name: 'webhooks.insert_attempt',
    text: `INSERT INTO webhooks.delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error)
           VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
    values: [outcome.deliveryId, outcome.attempt, outcome.startedAt, outcome.durationMs, outcome.statusCode, outcome.error ?? null],
  });
  await db.query({
    name: 'webhooks.settle_delivery',
    text: `UPDATE webhooks.deliveries
              SET status = CASE WHEN $3::boolean THEN 'delivered' WHEN $4::bigint IS NULL THEN 'failed' ELSE 'pending' END,
                  delivered_at = CASE WHEN $3 THEN now() END,
                  next_attempt_at = CASE WHEN $3 OR $4::bigint IS NULL THEN NULL
                                         ELSE now() + make_interval(secs => $4::double precision / 1000) END
            WHERE id = $1 AND attempt_count = $2 AND status = 'pending'`,
    values: [outcome.deliveryId, outcome.attempt, outcome.delivered, outcome.retryInMs ?? null],
  });
}

/**
 * A delivery of the user's, made due now with a fresh retry schedule, whatever its state (a
 * delivered one is delivered again: the receiver asked). Same row, so the same webhook-id.
 */
export async function replayUserDelivery(db: Queryable, userId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  const result = await db.query<DeliveryRow>({
    name: 'webhooks.replay_delivery',
    text: `UPDATE webhooks.deliveries d
              SET status = 'pending', delivered_at = NULL, next_attempt_at = now(), schedule_step = 0
             FROM webhooks.endpoints e
            WHERE d.id = $1 AND e.id = d.endpoint_id AND e.user_id = $2
           RETURNING d.*`,
    values: [deliveryId, userId],
  });
  return result.rows[0];
}

/** An endpoint's deliveries, newest first, after the cursor; limit + 1 rows tell whether a next page exists. */
export async function selectDeliveriesPage(
  db: Queryable,
  endpointId: string,
  cursor: ListingPageCursor | undefined,
  limit: number,
): Promise<DeliveryRow[]> {
  const result = cursor
    ? await db.query<DeliveryRow>({
        name: 'webhooks.deliveries_after',
        text: `SELECT * FROM webhooks.deliveries WHERE endpoint_id = $1 AND (created_at, id) < ($2, $3::uuid)
                ORDER BY created_at DESC, id DESC LIMIT $4`,
        values: [endpointId, cursor.at, cursor.id, limit + 1],
      })
    : await db.query<DeliveryRow>({
        name: 'webhooks.deliveries_first',
        text: `SELECT * FROM webhooks.deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
        values: [endpointId, limit + 1],
      });
  return result.rows;
}

/** The attempts of some deliveries, in attempt order. */
export async function selectAttempts(db: Queryable, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const result = await db.query<AttemptRow>({
    name: 'webhooks.attempts_of',
    text: `SELECT * FROM webhooks.delivery_attempts WHERE delivery_id = ANY($1::uuid[]) ORDER BY delivery_id, attempt`,
    values: [deliveryIds],
  });
  return result.rows;
}
