import { enumWords, jobsAdminV1 } from '@atelier/contracts';
import { pageSize } from '@atelier/encoding';
import { FailedPreconditionError, InvalidArgumentError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { insertAuditEntry, requireOperatorActor } from '@atelier/operator-audit';
import { requireUserId } from '@atelier/validation';
import { inTransaction } from '@atelier/db';
import { findOutboxRow, listDeadOutboxRows, replayDeadOutboxRow } from '../../db/outbox-sql.js';
import type { OutboxRow } from '../../db/outbox-row.js';
import { insertOutboxReplay, selectOutboxReplays, type OutboxReplayRow } from '../../db/outbox-replay-sql.js';
import type { JobsContext } from '../../jobs-context.js';

type ListDead = Handler<typeof jobsAdminV1.JobsAdminServiceService.listDeadOutboxEvents>;
type Replay = Handler<typeof jobsAdminV1.JobsAdminServiceService.replayOutboxEvent>;
type ListReplays = Handler<typeof jobsAdminV1.JobsAdminServiceService.listOutboxReplays>;

/** The outbox's `status` column holds the contract's words for OutboxStatus. */
const STATUSES = enumWords(jobsAdminV1.OutboxStatus);
/** A replay's audit outcome: the reason its refusal carries, as for every audited action. */
const REPLAY_AUDIT_OUTCOMES = { replayed: 'ok', not_dead: 'OUTBOX_EVENT_NOT_DEAD', not_found: 'OUTBOX_EVENT_NOT_FOUND' } as const;

/** outbox_replays.result holds the contract's words for OutboxReplayResult. */
const REPLAY_RESULTS = enumWords(jobsAdminV1.OutboxReplayResult);

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

/**
 * dead → pending with a fresh attempt budget; the relay publishes it again (deduplicated by its
 * key). Every call leaves an audit row in the same transaction as the change it made or refused:
 * the refusal is thrown only after that transaction committed, so a refused replay is audited too.
 */
export function replayOutboxEvent(context: JobsContext): Replay {
  return async (request) => {
    const id = requireOutboxId(request.eventId, 'event_id');
    const operatorId = requireUserId(request.operatorId, 'operator_id');
    const actor = requireOperatorActor(request.actor);
    const outcome = await inTransaction(context.pool, async (client) => {
      const replayed = await replayDeadOutboxRow(client, id);
      // After the UPDATE (which waited for any writer of the row), this read sees its latest status.
      const current = replayed ?? (await findOutboxRow(client, id));
      const result = replayed ? 'replayed' : current ? 'not_dead' : 'not_found';
      await insertOutboxReplay(client, { outboxId: id, operatorId, result });
      await insertAuditEntry(client, 'jobs', {
        action: 'outbox.replay',
        actor,
        target: `outbox:${id}`,
        outcome: REPLAY_AUDIT_OUTCOMES[result],
        ...(current ? { before: { status: replayed ? 'dead' : current.status }, after: { status: current.status } } : {}),
      });
      return { replayed, current };
    });
    if (!outcome.replayed) {
      if (!outcome.current) throw new NotFoundError('outbox event');
      throw new FailedPreconditionError('OUTBOX_EVENT_NOT_DEAD', `the event is ${outcome.current.status}, not dead`);
    }
    context.logger.info({ eventId: id, operator: operatorId }, 'dead outbox event replayed');
    context.onOutboxWrite();
    return { event: toOutboxEventMessage(outcome.replayed) };
  };
}

export function toOutboxReplayMessage(row: OutboxReplayRow): jobsAdminV1.OutboxReplay {
  return {
    id: Number(row.id),
    outboxId: row.outbox_id,
    operatorId: row.operator_id,
    result: REPLAY_RESULTS.fromWord(row.result) ?? jobsAdminV1.OutboxReplayResult.UNSPECIFIED,
    replayedAt: row.replayed_at,
  };
}

/** The replay audit, newest first; the page token is the last id of the previous page. */
export function listOutboxReplays({ pool }: JobsContext): ListReplays {
  return async (request) => {
    const limit = pageSize(request.pageSize);
    const beforeId = request.pageToken ? requireOutboxId(request.pageToken, 'page_token') : undefined;
    const rows = await selectOutboxReplays(pool, beforeId, limit);
    const page = rows.slice(0, limit);
    return { replays: page.map(toOutboxReplayMessage), nextPageToken: rows.length > limit ? page.at(-1)!.id : '' };
  };
}
