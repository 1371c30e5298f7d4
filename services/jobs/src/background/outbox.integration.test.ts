import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, waitUntil, TEST_OPERATOR_ACTOR } from '@atelier/testing';
import { jobsAdminV1, jobsEventsV1, jobsV1 } from '@atelier/contracts';
import { NotificationListener, createSqlPool, type SqlPool } from '@atelier/db';
import { ErrorCode } from '@atelier/errors';
import { createLogger } from '@atelier/logging';
import { connectNats, ensureJobStreams, jetstream, jetstreamManager } from '@atelier/nats';
import { claimDueOutboxRows } from '../db/outbox-sql.js';
import { createJobs, type NewJob } from '../db/transitions/create-sql.js';
import { newCanaryJob } from '../test-support/new-job.js';
import { OutboxRelay } from './outbox-relay.js';
import { OutboxWakeups } from './outbox-wakeups.js';
import { canaryRequest, refusal, startJobsHarness, type JobsHarness } from '../test-support/jobs-harness.js';

let h: JobsHarness;
const logger = createLogger({ service: 'outbox-test', level: 'silent' });
const pools: SqlPool[] = [];

beforeAll(async () => {
  h = await startJobsHarness({}, { peers: false });
}, 60_000);

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await h?.stop();
});

let seq = 0;
const createCanaries = (count: number) =>
  Promise.all(Array.from({ length: count }, () => h.jobs.createJob(canaryRequest(`outbox-user-${process.pid}`, `o-${++seq}`)))).then((rs) =>
    rs.map((r) => r.job!),
  );

/** A canary as CreateJob would insert it (for transitions called directly). */
function newCanary(): NewJob {
  return newCanaryJob({ userId: `outbox-direct-${process.pid}`, idempotencyKey: `direct-${++seq}` });
}

function newPool(): SqlPool {
  const pool = createSqlPool({ databaseUrl: h.database.url, applicationName: 'outbox-test' });
  pools.push(pool);
  return pool;
}

function newRelay(relayId: string, overrides: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}) {
  return new OutboxRelay({ pool: newPool(), broker: () => jetstream(h.nats), logger, relayId, pollIntervalMs: 100, ...overrides });
}

async function streamMessages(stream: string): Promise<number> {
  return (await (await jetstreamManager(h.nats)).streams.info(stream)).state.messages;
}

async function outboxStatus(jobIds: string[]) {
  const { rows } = await h.db.query(`SELECT status, count(*)::int AS n FROM jobs.outbox WHERE aggregate_id = ANY($1) GROUP BY status`, [
    jobIds,
  ]);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

describe('outbox - relay to JetStream', () => {
  it("publishes a new job's dispatch with Nats-Msg-Id = dedupe key, payload decodable as JobDispatch", async () => {
    const [job] = await createCanaries(1);
    await waitUntil(async () => (await outboxStatus([job!.id])).published === 1);
    const jsm = await jetstreamManager(h.nats);
    const message = await jsm.streams.getMessage(h.topology.jobsStream, { last_by_subj: h.topology.dispatchSubject('interactive') });
    const { rows } = await h.db.query(`SELECT dedupe_key FROM jobs.outbox WHERE aggregate_id = $1`, [job!.id]);
    expect(message!.header.get('Nats-Msg-Id')).toBe(rows[0].dedupe_key);
    const dispatch = jobsEventsV1.JobDispatch.fromJSON(message!.json());
    expect(dispatch).toMatchObject({ jobId: job!.id, jobType: 'system.canary', queue: jobsV1.JobQueue.INTERACTIVE, attempt: 1 });
  });

  it('publishes every event exactly once with two relays on the same outbox', async () => {
    await h.app.relay.stop();
    try {
      const before = await streamMessages(h.topology.jobsStream);
      const jobs = await createCanaries(300);
      // Each relay counts what it published: a row claimed by both would be counted twice (JetStream
      // would hide the second copy behind its Nats-Msg-Id, so the stream alone cannot tell).
      let publishes = 0;
      const counting = { observe: () => (publishes += 1) };
      const relays = [
        newRelay('relay-a', { batchSize: 10, publishLag: counting }),
        newRelay('relay-b', { batchSize: 10, publishLag: counting }),
      ];
      relays.forEach((r) => r.start());
      await waitUntil(async () => (await outboxStatus(jobs.map((j) => j.id))).published === 300, { timeoutMs: 20_000 });
      await Promise.all(relays.map((r) => r.stop()));
      expect(await streamMessages(h.topology.jobsStream)).toBe(before + 300);
      expect(publishes).toBe(300); // no row was claimed twice
    } finally {
      h.app.relay.start();
    }
  });

  it('publishes a row whose relay died after claiming it, once the lock expires', async () => {
    await h.app.relay.stop();
    try {
      const [job] = await createCanaries(1);
      const claimed = await claimDueOutboxRows(h.app.context.pool, 'relay-that-dies', 100);
      expect(claimed.map((r) => r.aggregate_id)).toContain(job!.id);
      const before = await streamMessages(h.topology.jobsStream);
      const survivor = newRelay('survivor', { lockTimeoutMs: 1_000 });
      survivor.start();
      await waitUntil(async () => (await outboxStatus([job!.id])).published === 1, { timeoutMs: 10_000 });
      await survivor.stop();
      expect(await streamMessages(h.topology.jobsStream)).toBeGreaterThanOrEqual(before + 1);
      // The broker never refused it: no attempt is spent on a relay that died.
      const { rows } = await h.db.query(`SELECT attempt_count, last_error FROM jobs.outbox WHERE aggregate_id = $1`, [job!.id]);
      expect(rows[0].attempt_count).toBe(0);
    } finally {
      h.app.relay.start();
    }
  });

  it('does not publish twice a row whose relay died after publishing but before recording it', async () => {
    await h.app.relay.stop();
    try {
      const [job] = await createCanaries(1);
      const [row] = (await claimDueOutboxRows(h.app.context.pool, 'relay-that-dies-later', 100)).filter((r) => r.aggregate_id === job!.id);
      await jetstream(h.nats).publish(row!.subject, JSON.stringify(row!.payload), { msgID: row!.dedupe_key });
      const before = await streamMessages(h.topology.jobsStream);
      const survivor = newRelay('survivor-2', { lockTimeoutMs: 1_000 });
      survivor.start();
      await waitUntil(async () => (await outboxStatus([job!.id])).published === 1, { timeoutMs: 10_000 });
      await survivor.stop();
      expect(await streamMessages(h.topology.jobsStream)).toBe(before);
    } finally {
      h.app.relay.start();
    }
  });

  it('holds a delayed row back until it is due', async () => {
    const [job] = await createCanaries(1);
    await waitUntil(async () => (await outboxStatus([job!.id])).published === 1);
    const { rows } = await h.db.query(
      `INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, available_at)
       VALUES ($1, 'job.dispatch', $2, $3, '{"jobId": "x"}', now() + interval '1500 milliseconds') RETURNING available_at`,
      [job!.id, h.topology.dispatchSubject('background'), `delayed-${job!.id}`],
    );
    h.app.context.onOutboxWrite();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect((await h.db.query(`SELECT status FROM jobs.outbox WHERE dedupe_key = $1`, [`delayed-${job!.id}`])).rows[0].status).toBe(
      'pending',
    );
    await waitUntil(
      async () =>
        (await h.db.query(`SELECT status FROM jobs.outbox WHERE dedupe_key = $1`, [`delayed-${job!.id}`])).rows[0].status === 'published',
    );
    const published = (await h.db.query(`SELECT published_at FROM jobs.outbox WHERE dedupe_key = $1`, [`delayed-${job!.id}`])).rows[0]
      .published_at;
    expect(published.getTime()).toBeGreaterThanOrEqual(rows[0].available_at.getTime());
  });

  it('wakes a relay of another replica through LISTEN/NOTIFY, long before its poll interval', async () => {
    await h.app.relay.stop();
    const otherPool = newPool();
    const other = new OutboxRelay({
      pool: otherPool,
      broker: () => jetstream(h.nats),
      logger,
      relayId: 'other-replica',
      pollIntervalMs: 60_000,
    });
    const listener = new NotificationListener({ databaseUrl: h.database.url, logger, applicationName: 'other-replica-listener' });
    const wakeups = new OutboxWakeups({ pool: otherPool, listener, logger, onWake: () => other.wake() });
    await listener.start();
    other.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // the relay is asleep now, for a minute
      const startedAt = Date.now();
      const [job] = await createCanaries(1); // this replica signals; only the other relay runs
      await waitUntil(async () => (await outboxStatus([job!.id])).published === 1, { timeoutMs: 5_000 });
      expect(Date.now() - startedAt).toBeLessThan(2_000);
    } finally {
      await other.stop();
      wakeups.stop();
      await listener.stop();
      h.app.relay.start();
    }
  });
});

describe('outbox - rows handed over by transitions', () => {
  const handOver = async (relay: OutboxRelay, count: number) => {
    const outcomes = await createJobs(
      h.app.context.pool,
      Array.from({ length: count }, () => newCanary()),
      Array.from({ length: count }, () => 'test'),
      { ...h.app.context.subjects, claimFor: relay.claimLane() },
    );
    return outcomes.map((outcome) => outcome.job!);
  };

  it('publishes the rows a transition wrote claimed for it right after the commit, with no claim cycle', async () => {
    await h.app.relay.stop();
    // A relay that polls once a minute and is never woken: only the hand-over can publish in time.
    const relay = newRelay('hand-over', { pollIntervalMs: 60_000, lockTimeoutMs: 60_000 });
    relay.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const jobs = await handOver(relay, 20);
      const { rows } = await h.db.query(`SELECT DISTINCT status, locked_by FROM jobs.outbox WHERE aggregate_id = ANY($1)`, [
        jobs.map((j) => j.id),
      ]);
      expect(rows).toEqual([{ status: 'processing', locked_by: 'hand-over' }]);
      relay.publishClaimed(jobs.flatMap((job) => job.claimed_outbox ?? []));
      await waitUntil(async () => (await outboxStatus(jobs.map((j) => j.id))).published === 20, { timeoutMs: 3_000 });
    } finally {
      await relay.stop();
      h.app.relay.start();
    }
  });

  it('publishes rows written claimed for a relay that died before publishing them, once their lock expires', async () => {
    await h.app.relay.stop();
    try {
      const jobs = await createJobs(h.app.context.pool, [newCanary(), newCanary()], ['test', 'test'], {
        ...h.app.context.subjects,
        claimFor: 'relay-killed-after-commit',
      }).then((outcomes) => outcomes.map((outcome) => outcome.job!));
      expect(await outboxStatus(jobs.map((j) => j.id))).toEqual({ processing: 2 });
      const survivor = newRelay('survivor-of-hand-over', { lockTimeoutMs: 1_000 });
      survivor.start();
      await waitUntil(async () => (await outboxStatus(jobs.map((j) => j.id))).published === 2, { timeoutMs: 10_000 });
      await survivor.stop();
    } finally {
      h.app.relay.start();
    }
  });

  it('claims nothing while the broker is away or the relay stopped, and hands back to pending what it was given after it stopped', async () => {
    expect(newRelay('no-broker', { broker: () => undefined }).claimLane()).toBeNull();
    await h.app.relay.stop();
    const relay = newRelay('stopping', { pollIntervalMs: 60_000 });
    relay.start();
    const jobs = await handOver(relay, 3);
    await relay.stop();
    expect(relay.claimLane()).toBeNull();
    relay.publishClaimed(jobs.flatMap((job) => job.claimed_outbox ?? []));
    await waitUntil(async () => (await outboxStatus(jobs.map((j) => j.id))).pending === 3, { timeoutMs: 3_000 });
    h.app.relay.start();
    await waitUntil(async () => (await outboxStatus(jobs.map((j) => j.id))).published === 3, { timeoutMs: 5_000 });
  });
});

describe('outbox - dead events and replay', () => {
  it('backs off failed publishes, marks the row dead after its attempts, and lets an operator replay it', async () => {
    await h.restart({ OUTBOX_MAX_ATTEMPTS: 2 });
    const [job] = await createCanaries(1);
    const dedupeKey = `undeliverable-${job!.id}`;
    await h.db.query(
      `INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload) VALUES ($1, 'job.dispatch', 'nowhere.at.all', $2, '{"jobId": "x"}')`,
      [job!.id, dedupeKey],
    );
    h.app.context.onOutboxWrite();
    await waitUntil(
      async () => (await h.db.query(`SELECT status FROM jobs.outbox WHERE dedupe_key = $1`, [dedupeKey])).rows[0].status === 'dead',
      { timeoutMs: 15_000 },
    );
    const dead = (await h.db.query(`SELECT * FROM jobs.outbox WHERE dedupe_key = $1`, [dedupeKey])).rows[0];
    expect(dead.attempt_count).toBe(2);
    expect(dead.last_error).toBe(
      'no JetStream stream takes subject nowhere.at.all (no responders): the stream is missing, or JetStream is off',
    );

    const listed = await h.admin.listDeadOutboxEvents({ pageSize: 0, pageToken: '' });
    const event = listed.events.find((e) => e.dedupeKey === dedupeKey)!;
    expect(event).toMatchObject({ status: jobsAdminV1.OutboxStatus.DEAD, attemptCount: 2, subject: 'nowhere.at.all' });

    expect(await refusal(h.admin.replayOutboxEvent({ actor: TEST_OPERATOR_ACTOR, eventId: '1', operatorId: 'ops' }))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'OUTBOX_EVENT_NOT_DEAD',
    });
    expect(await refusal(h.admin.replayOutboxEvent({ actor: TEST_OPERATOR_ACTOR, eventId: 'abc', operatorId: 'ops' }))).toMatchObject({
      field: 'event_id',
    });
    // Ids are int64: one past the maximum is refused by field before it reaches Postgres (22003).
    for (const eventId of ['9223372036854775808', '9999999999999999999', '-1', '1e3', '0']) {
      expect(await refusal(h.admin.replayOutboxEvent({ actor: TEST_OPERATOR_ACTOR, eventId, operatorId: 'ops' })), eventId).toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        field: 'event_id',
      });
    }
    expect(
      await refusal(h.admin.replayOutboxEvent({ actor: TEST_OPERATOR_ACTOR, eventId: '9223372036854775807', operatorId: 'ops' })),
    ).toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
    expect(await refusal(h.admin.listDeadOutboxEvents({ pageSize: 1, pageToken: '9223372036854775808' }))).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'page_token',
    });

    // The operator fixes the cause (here: the subject), then replays.
    await h.db.query(`UPDATE jobs.outbox SET subject = $2 WHERE id = $1`, [event.id, h.topology.dispatchSubject('background')]);
    const replayed = await h.admin.replayOutboxEvent({ actor: TEST_OPERATOR_ACTOR, eventId: event.id, operatorId: 'ops' });
    expect(replayed.event).toMatchObject({ attemptCount: 0 });
    await waitUntil(
      async () => (await h.db.query(`SELECT status FROM jobs.outbox WHERE dedupe_key = $1`, [dedupeKey])).rows[0].status === 'published',
    );
    await h.restart({ OUTBOX_MAX_ATTEMPTS: 10 });
  });

  it('reports queue depth and outbox backlog for operators', async () => {
    const stats = await h.admin.getQueueStats({});
    expect(stats.queues.map((q) => q.queue)).toEqual([jobsV1.JobQueue.INTERACTIVE, jobsV1.JobQueue.BACKGROUND]);
    expect(stats.queues[0]!.ready).toBeGreaterThan(0);
    expect(stats.outboxDead).toBe(0);
  });
});

describe('outbox - streams that disappear', () => {
  it('declares the streams again when a publish finds none, and publishes the waiting rows', async () => {
    const jsm = await jetstreamManager(h.nats);
    await jsm.streams.delete(h.topology.jobsStream);
    const [job] = await createCanaries(1);
    await waitUntil(async () => (await outboxStatus([job!.id])).published === 1, { timeoutMs: 15_000 });
    const message = await jsm.streams.getMessage(h.topology.jobsStream, { last_by_subj: h.topology.dispatchSubject('interactive') });
    expect(jobsEventsV1.JobDispatch.fromJSON(message!.json()).jobId).toBe(job!.id);
  });
});

describe('outbox - broker outages', () => {
  it('waits out a broker that does not answer without spending any attempt, then publishes', async () => {
    await h.app.relay.stop();
    const broker = await startNatsServer();
    const connection = await connectNats({ servers: broker.url, name: 'outbox-outage-test' });
    try {
      await ensureJobStreams(await jetstreamManager(connection), h.topology);
      let reachable = false;
      const relay = newRelay('outage-relay', {
        maxAttempts: 2,
        publishTimeoutMs: 300,
        broker: () => jetstream(reachable ? h.nats : connection),
      });
      await broker.kill();
      const jobs = await createCanaries(3);
      relay.start();
      // The broker is gone: publishes time out, and the rows wait, pending, with no attempt spent.
      await waitUntil(
        async () => {
          const { rows } = await h.db.query(`SELECT last_error FROM jobs.outbox WHERE aggregate_id = ANY($1)`, [jobs.map((j) => j.id)]);
          return rows.every((row) => String(row.last_error).startsWith('not published yet'));
        },
        { timeoutMs: 10_000 },
      );
      await new Promise((resolve) => setTimeout(resolve, 2_000)); // several more cycles of the outage
      const waiting = await h.db.query(`SELECT status, attempt_count FROM jobs.outbox WHERE aggregate_id = ANY($1)`, [
        jobs.map((j) => j.id),
      ]);
      expect(waiting.rows.map((row) => [row.status, row.attempt_count])).toEqual([
        ['pending', 0],
        ['pending', 0],
        ['pending', 0],
      ]);
      // The broker answers again (here: the suite's own NATS): everything goes out, nothing died.
      reachable = true;
      await waitUntil(async () => (await outboxStatus(jobs.map((j) => j.id))).published === 3, { timeoutMs: 15_000 });
      await relay.stop();
      expect((await outboxStatus(jobs.map((j) => j.id))).dead).toBeUndefined();
    } finally {
      await connection.close().catch(() => {});
      await broker.close();
      h.app.relay.start();
    }
  });
});
