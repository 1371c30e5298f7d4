import { jobsEventsV1 } from '@atelier/contracts';
import { isUuid, USER_ID_PATTERN } from '@atelier/validation';

/**
 * atelier.jobs.v1.AccountDeletedEvent (events.proto), every field present: what a service's part
 * of the deletion is given.
 */
export type AccountDeleted = jobsEventsV1.AccountDeletedEvent & { requestedAt: Date };

/**
 * The event from its message's body, proto3 JSON as jobs' outbox writes it
 * (services/jobs/src/db/account-deletion-sql.ts), or undefined when it is not one: a forged or
 * corrupt message is dropped, not retried.
 */
export function decodeAccountDeleted(body: Uint8Array): AccountDeleted | undefined {
  let event: jobsEventsV1.AccountDeletedEvent;
  try {
    const json: unknown = JSON.parse(new TextDecoder().decode(body));
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
    event = jobsEventsV1.AccountDeletedEvent.fromJSON(json);
  } catch {
    return undefined;
  }
  const { deletionId, userId, requestedAt } = event;
  if (!isUuid(deletionId) || !USER_ID_PATTERN.test(userId)) return undefined;
  if (requestedAt === undefined || Number.isNaN(requestedAt.getTime())) return undefined;
  return { deletionId, userId, requestedAt };
}

/** The message body of an event, proto3 JSON: what jobs' outbox publishes, for tests and tools. */
export function encodeAccountDeleted(event: jobsEventsV1.AccountDeletedEvent): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(jobsEventsV1.AccountDeletedEvent.toJSON(event)));
}
