import { webhooksV1 } from '@atelier/contracts';
import type { AttemptRow, DeliveryRow, DeliveryStatusWord } from '../db/delivery-sql.js';
import type { EndpointRow } from '../db/endpoint-sql.js';

const STATUS: Record<DeliveryStatusWord, webhooksV1.DeliveryStatus> = {
  pending: webhooksV1.DeliveryStatus.PENDING,
  delivered: webhooksV1.DeliveryStatus.DELIVERED,
  failed: webhooksV1.DeliveryStatus.FAILED,
};

/** An endpoint as callers see it: never its secret. */
export function toEndpointMessage(row: EndpointRow): webhooksV1.Endpoint {
  return { id: row.id, url: row.url, eventTypes: row.event_types, description: row.description, createdAt: row.created_at };
}

export function toDeliveryMessage(row: DeliveryRow, attempts: readonly AttemptRow[]): webhooksV1.Delivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: STATUS[row.status],
    attemptCount: row.attempt_count,
    nextAttemptAt: row.next_attempt_at ?? undefined,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at ?? undefined,
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      startedAt: attempt.started_at,
      durationMs: attempt.duration_ms,
      statusCode: attempt.status_code,
      error: attempt.error ?? undefined,
    })),
  };
}
