import type { Queryable } from '@atelier/db';

/** What a replay call found: the words of jobs.outbox_replays.result. */
export type OutboxReplayResult = 'replayed' | 'not_dead' | 'not_found';

/** A row of jobs.outbox_replays. Ids are bigint, kept as strings. */
export interface OutboxReplayRow {
  id: string;
  outbox_id: string;
  operator_id: string;
  result: OutboxReplayResult;
  replayed_at: Date;
}

/** One audit row; written in the transaction that replayed (or refused to replay) the event. */
export async function insertOutboxReplay(
  db: Queryable,
  replay: { outboxId: string; operatorId: string; result: OutboxReplayResult },
): Promise<OutboxReplayRow> {
  const result = await db.query<OutboxReplayRow>({
    name: 'jobs.insert_outbox_replay',
    text: `INSERT INTO jobs.outbox_replays (outbox_id, operator_id, result) VALUES ($1, $2, $3) RETURNING *`,
    values: [replay.outboxId, replay.operatorId, replay.result],
  });
  return result.rows[0]!;
}

/** Newest first, keyset on the identity (ids only grow), with one extra row to know whether another page follows. */
export async function selectOutboxReplays(db: Queryable, beforeId: string | undefined, limit: number): Promise<OutboxReplayRow[]> {
  const result = await db.query<OutboxReplayRow>({
    name: 'jobs.list_outbox_replays',
    text: `SELECT * FROM jobs.outbox_replays WHERE ($1::bigint IS NULL OR id < $1::bigint) ORDER BY id DESC LIMIT $2`,
    values: [beforeId ?? null, limit + 1],
  });
  return result.rows;
}
