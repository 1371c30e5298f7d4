import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@atelier/testing';
import { jobsEventsV1 } from '@atelier/contracts';
import { createSqlPool, type SqlPool } from '@atelier/db';
import { createLogger } from '@atelier/logging';
import { jetstreamManager } from '@atelier/nats';
import { StaleDispatchSweeper } from './stale-dispatch-sweeper.js';
import { canaryRequest, startJobsHarness, type JobsHarness } from '../test-support/jobs-harness.js';

// A dispatch message lost after publication (dropped by JetStream, a stream recreated) must not
// leave its job queued forever: the sweeper dispatches it again, once.
let h: JobsHarness;
const logger = createLogger({ service: 'sweeper-test', level: 'silent' });
const pools: SqlPool[] = [];
const STALE_AFTER_MS = 60_000;

beforeAll(async () => {
  h = await startJobsHarness({}, { peers: false });
}, 60_000);

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await h?.stop();
});

function newSweeper(): StaleDispatchSweeper {
  const pool = createSqlPool({ databaseUrl: h.database.url, applicationName: 'sweeper-test' });
  pools.push(pool);
  return new StaleDispatchSweeper({
    pool,
    subjects: h.app.context.subjects,
    logger,
    onOutboxWrite: () => h.app.relay.wake(),
    intervalMs: 3_600_000,
    staleAfterMs: STALE_AFTER_MS,
    batchSize: 7,
  });
}

let seq = 0;
async function publishedCanaries(count: number): Promise<string[]> {
  const ids = await Promise.all(
    Array.from({ length: count }, async () => (await h.jobs.createJob(canaryRequest(`sweep-user-${process.pid}`, `s-${++seq}`))).job!.id),
  );
  await waitUntil(async () => (await dispatchRows(ids)).every((row) => row.status === 'published'));
  return ids;
}

async function dispatchRows(jobIds: string[]) {
  const { rows } = await h.db.query<{ aggregate_id: string; status: string; dedupe_key: string }>(
    `SELECT aggregate_id, status, dedupe_key FROM jobs.outbox WHERE event_type = 'job.dispatch' AND aggregate_id = ANY($1) ORDER BY id`,
    [jobIds],
  );
  return rows;
}

/** What time does to a lost dispatch: the job overdue, its publication long past. */
async function age(jobIds: string[]): Promise<void> {
  await h.db.query(`UPDATE jobs.generation_jobs SET next_attempt_at = now() - interval '1 hour' WHERE id = ANY($1)`, [jobIds]);
  await h.db.query(`UPDATE jobs.outbox SET published_at = now() - interval '1 hour' WHERE aggregate_id = ANY($1)`, [jobIds]);
}

async function streamedJobIds(): Promise<string[]> {
  const jsm = await jetstreamManager(h.nats);
  const { state } = await jsm.streams.info(h.topology.jobsStream);
  const ids: string[] = [];
  for (let seqNo = state.first_seq; seqNo <= state.last_seq && state.messages > 0; seqNo += 1) {
    const message = await jsm.streams.getMessage(h.topology.jobsStream, { seq: seqNo }).catch(() => null);
    if (message) ids.push(jobsEventsV1.JobDispatch.fromJSON(message.json()).jobId);
  }
  return ids;
}

describe('stale dispatch sweeper', () => {
  it('dispatches a queued job again when its message was lost, once, in its own trace and with a new message id', async () => {
    const [jobId] = await publishedCanaries(1);
    await (await jetstreamManager(h.nats)).streams.purge(h.topology.jobsStream); // the message is lost
    const sweeper = newSweeper();
    expect(await sweeper.runOnce(), 'not stale yet').toBe(0);

    await age([jobId!]);
    expect(await sweeper.runOnce()).toBe(1);
    await waitUntil(async () => (await dispatchRows([jobId!])).every((row) => row.status === 'published'));
    const rows = await dispatchRows([jobId!]);
    expect(rows).toHaveLength(2);
    expect(rows[1]!.dedupe_key).toMatch(new RegExp(`^redispatch:${jobId}:v\\d+:\\d+$`));
    expect(await streamedJobIds()).toEqual([jobId]);
    // Just published again: not stale until another staleAfterMs without a claim.
    expect(await newSweeper().runOnce()).toBe(0);
  });

  it('leaves alone jobs whose dispatch is on its way, recent, running or finished', async () => {
    const ids = await publishedCanaries(4);
    const [pending, recent, running, finished] = ids as [string, string, string, string];
    await age([pending, running, finished]);
    await h.db.query(
      `UPDATE jobs.outbox SET status = 'pending', published_at = NULL, available_at = now() + interval '1 hour' WHERE aggregate_id = $1`,
      [pending],
    );
    await h.db.query(`UPDATE jobs.generation_jobs SET next_attempt_at = now() - interval '1 hour' WHERE id = $1`, [recent]);
    await h.db.query(
      `UPDATE jobs.generation_jobs SET status = 'running', attempt_count = 1, started_at = now(), lease_owner = 'w', lease_expires_at = now() + interval '1 minute' WHERE id = $1`,
      [running],
    );
    await h.db.query(
      `UPDATE jobs.generation_jobs SET status = 'cancelled', completed_at = now(), cancel_requested_at = now() WHERE id = $1`,
      [finished],
    );
    expect(await newSweeper().runOnce()).toBe(0);
    expect((await dispatchRows(ids)).length).toBe(4);
  });

  it('dispatches again a queued job whose dispatch row is dead, and keeps the dead row for operators', async () => {
    const [jobId] = (await publishedCanaries(1)) as [string];
    await age([jobId]);
    await h.db.query(`UPDATE jobs.outbox SET status = 'dead', published_at = NULL WHERE aggregate_id = $1`, [jobId]);
    expect(await newSweeper().runOnce()).toBe(1);
    const rows = await dispatchRows([jobId]);
    expect(rows.map((row) => row.status)).toContain('dead');
    expect(rows.filter((row) => row.dedupe_key.startsWith('redispatch:'))).toHaveLength(1);
  });

  it('dispatches each of many stale jobs exactly once with sweepers on several replicas at once', async () => {
    const ids = await publishedCanaries(30);
    await age(ids);
    const counts = await Promise.all([newSweeper().runOnce(), newSweeper().runOnce(), newSweeper().runOnce()]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(30);
    const rows = await dispatchRows(ids);
    const redispatches = rows.filter((row) => row.dedupe_key.startsWith('redispatch:'));
    expect(new Set(redispatches.map((row) => row.aggregate_id)).size).toBe(30);
    expect(redispatches).toHaveLength(30);
  });
});
