import { enumWords, jobsAdminV1 } from '@atelier/contracts';
import { pageSize } from '@atelier/encoding';
import { FailedPreconditionError, InvalidArgumentError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import { findOutboxRow, listDeadOutboxRows, replayDeadOutboxRow, type OutboxRow } from '../../db/outbox-sql.js';
import type { JobsContext } from '../../jobs-context.js';

type ListDead = Handler<typeof jobsAdminV1.JobsAdminServiceService.listDeadOutboxEvents>;
type Replay = Handler<typeof jobsAdminV1.JobsAdminServiceService.replayOutboxEvent>;

/** The outbox's `status` column holds the contract's words for OutboxStatus. */
const STATUSES = enumWords(jobsAdminV1.OutboxStatus);

export function toOutboxEventMessage(row: OutboxRow): jobsAdminV1.OutboxEvent {
  return {
    id: row.id,
    aggregateId: row.aggregate_id,
    eventType: row.event_type,
    subject: row.subject,
    dedupeKey: row.dedupe_key,
    status: STATUSES.fromWord(row.status) ?? jobsAdminV1.OutboxStatus.UNSPECIFIED,
    attemptCount: row.attempt_count,
    lastError: row.last_error ?? undefined,
    createdAt: row.created_at,
    availableAt: row.available_at,
    publishedAt: row.published_at ?? undefined,
  };
}

const INT64_MAX = 9_223_372_036_854_775_807n;

/** Outbox ids are bigint: a positive decimal no larger than the int64 maximum (else Postgres 22003). */
export function requireOutboxId(value: string, field: string): string {
  if (!/^[1-9][0-9]{0,18}$/.test(value) || BigInt(value) > INT64_MAX) {
    throw new InvalidArgumentError(field, `must be an outbox event id: a positive integer of at most ${INT64_MAX}`);
  }
  return value;
}

/** Outbox events that used up their publish attempts, oldest first. */
export function listDeadOutboxEvents({ pool }: JobsContext): ListDead {
  return async (request) => {
    const limit = pageSize(request.pageSize);
    const afterId = request.pageToken ? requireOutboxId(request.pageToken, 'page_token') : undefined;
    const rows = await listDeadOutboxRows(pool, afterId, limit);
    const page = rows.slice(0, limit);
    return { events: page.map(toOutboxEventMessage), nextPageToken: rows.length > limit ? page.at(-1)!.id : '' };
  };
}

/** dead → pending with a fresh attempt budget; the relay publishes it again (deduplicated by its key). */
export function replayOutboxEvent(context: JobsContext): Replay {
  return async (request) => {
    const id = requireOutboxId(request.eventId, 'event_id');
    requireUserId(request.operatorId, 'operator_id');
    const row = await replayDeadOutboxRow(context.pool, id);
    if (!row) {
      const current = await findOutboxRow(context.pool, id);
      if (!current) throw new NotFoundError('outbox event');
      throw new FailedPreconditionError('OUTBOX_EVENT_NOT_DEAD', `the event is ${current.status}, not dead`);
    }
    context.logger.info({ eventId: id, operator: request.operatorId }, 'dead outbox event replayed');
    context.onOutboxWrite();
    return { event: toOutboxEventMessage(row) };
  };
}
