import type { Queryable } from '@atelier/db';
import { backoffDelayMs } from '@atelier/lifecycle';
import { markOutboxPublished, markOutboxRejected, releaseUnpublishedOutboxRows, type OutboxRow } from './outbox-sql.js';
import { STREAMS_TRUSTED_FOR_MS, publishErrorText, publishFailureOf } from './publish-failure.js';
import type { RelayLogger } from './relay-cycles.js';

export interface SettleOptions {
  pool: Queryable;
  /** The schema whose `outbox` holds the rows. */
  schema: string;
  /** The lock owner of the rows. */
  relayId: string;
  /** Publishes the broker refuses before a row is dead (an unanswered publish counts for nothing). */
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  logger: RelayLogger;
  logFields?: object;
  /** When the streams were last declared successfully (0: never, or not since a failure). */
  streamsDeclaredAt: () => number;
  /** Declares the streams again; answers whether that worked (if not, the broker is not ready). */
  restoreStreams: () => Promise<boolean>;
}

type SettledRow = Pick<OutboxRow, 'id' | 'subject' | 'attempt_count'>;

/**
 * Settles the rows a relay holds after publishing them (`results[i]` is row i's publish): the
 * acknowledged ones published; the refused ones backed off, dead after maxAttempts refusals;
 * the unanswered ones handed back to pending untouched. A publish that finds no stream for its
 * subject declares the streams again, and counts as the subject's fault only if they had been
 * declared just before it. Answers how many rows it settled, or 'unanswered' when the broker is away.
 */
export async function settlePublishes(
  options: SettleOptions,
  rows: readonly SettledRow[],
  results: readonly PromiseSettledResult<unknown>[],
): Promise<number | 'unanswered'> {
  const { pool, schema, relayId, logger, logFields = {} } = options;
  const failed = results.flatMap((result, i) =>
    result.status === 'rejected' ? [{ row: rows[i]!, error: result.reason as unknown, kind: publishFailureOf(result.reason) }] : [],
  );
  await markOutboxPublished(
    pool,
    schema,
    relayId,
    rows.filter((_, i) => results[i]!.status === 'fulfilled').map((row) => row.id),
  );
  if (failed.length === 0) return rows.length;

  const missingIsRefusal = Date.now() - options.streamsDeclaredAt() < STREAMS_TRUSTED_FOR_MS;
  const brokerReady = missingIsRefusal || !failed.some((f) => f.kind === 'missing-stream') || (await options.restoreStreams());
  const rejected = failed.filter((f) => f.kind === 'rejected' || (f.kind === 'missing-stream' && missingIsRefusal));
  const handedBack = failed.filter((f) => !rejected.includes(f));
  const dead = await markOutboxRejected(
    pool,
    schema,
    relayId,
    rejected.map((f) => ({
      id: f.row.id,
      error: publishErrorText(f.error, f.row.subject),
      retryInMs: backoffDelayMs(f.row.attempt_count + 1, { baseMs: options.retryBaseMs, maxMs: options.retryMaxMs }),
    })),
    options.maxAttempts,
  );
  if (handedBack.length > 0) {
    const first = handedBack[0]!;
    await releaseUnpublishedOutboxRows(
      pool,
      schema,
      relayId,
      handedBack.map((f) => f.row.id),
      `not published yet: ${publishErrorText(first.error, first.row.subject)}`,
    );
  }
  if (rejected.length > 0) {
    const first = rejected[0]!;
    logger.warn(
      { ...logFields, refused: rejected.length, firstError: publishErrorText(first.error, first.row.subject) },
      'outbox publish refused; backing off',
    );
  }
  for (const row of dead) {
    logger.error(
      { ...logFields, outboxId: row.id, eventType: row.event_type, lastError: row.last_error },
      'outbox row dead: the broker refused it every time',
    );
  }
  return handedBack.some((f) => f.kind === 'unanswered') || !brokerReady ? 'unanswered' : rows.length;
}
