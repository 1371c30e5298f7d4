import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsExecutionV1 } from '@atelier/contracts';
import { ErrorCode } from '@atelier/errors';
import { jetstreamManager } from '@atelier/nats';
import { waitUntil } from '@atelier/testing';
import type { PublishableRow } from './background/outbox-publish.js';
import { deleteProviderLimit, upsertProviderLimit } from './db/provider-limits-sql.js';
import {
  canaryRequest,
  catalogChoice,
  refusal,
  startJobsHarness,
  stylizeRequest,
  uploadInputImage,
  type JobsHarness,
} from './test-support/jobs-harness.js';

/**
 * AwaitJobs: a worker waiting at jobs is handed the jobs created there, claimed for it, and their
 * dispatch never goes through NATS; everything it cannot take goes through NATS as before.
 */

let h: JobsHarness;
let choice: Awaited<ReturnType<typeof catalogChoice>>;

beforeAll(async () => {
  h = await startJobsHarness({ QUOTA_MAX_IN_FLIGHT: 1000, QUOTA_DAILY_LIMIT: 100000, QUOTA_MONTHLY_LIMIT: 100000 });
  choice = await catalogChoice(h.catalog);
  // Only the rows a commit hands to its replica's relay are handed over: once the relay runs.
  await waitUntil(() => h.app.relay.claimLane() !== null, { timeoutMs: 10_000 });
}, 90_000);

afterAll(async () => {
  await h?.stop();
});

let seq = 0;
const newUser = () => `await-user-${process.pid}-${++seq}`;
const workerId = () => `await-worker/${process.pid}/${++seq}`;
const createCanary = async () => (await h.jobs.createJob(canaryRequest(newUser(), `a-${++seq}`))).job!;

const jobRow = async (jobId: string) => (await h.db.query('SELECT * FROM jobs.generation_jobs WHERE id = $1', [jobId])).rows[0];
const dispatchRow = async (jobId: string) =>
  (await h.db.query(`SELECT * FROM jobs.outbox WHERE aggregate_id = $1 AND event_type = 'job.dispatch' ORDER BY id`, [jobId])).rows;
const events = async (jobId: string) =>
  (await h.db.query('SELECT from_status, to_status, attempt, actor, detail FROM jobs.job_events WHERE job_id = $1 ORDER BY id', [jobId]))
    .rows;

/** The dispatch messages of this job in the jobs stream (no worker consumes them here). */
async function dispatchMessagesOf(jobId: string): Promise<number> {
  const jsm = await jetstreamManager(h.nats);
  const stream = h.topology.jobsStream;
  const { state } = await jsm.streams.info(stream);
  let found = 0;
  for (let seqNo = state.first_seq; seqNo <= state.last_seq && state.messages > 0; seqNo++) {
    const message = await jsm.streams.getMessage(stream, { seq: seqNo }).catch(() => undefined);
    if (
      message?.subject.startsWith(h.topology.dispatchSubject('interactive').replace(/interactive$/, '')) &&
      message.json<{ jobId: string }>().jobId === jobId
    )
      found += 1;
  }
  return found;
}

const awaitJobs = (request: Partial<jobsExecutionV1.AwaitJobsRequest>, signal?: AbortSignal) =>
  h.execution.awaitJobs(
    { workerId: workerId(), interactiveSlots: 4, backgroundSlots: 4, waitMs: 10_000, ...request },
    { deadlineMs: 20_000, signal },
  );

describe('AwaitJobs', () => {
  it('hands a job created while a worker waits to that worker, claimed, and never publishes its dispatch', async () => {
    const worker = workerId();
    const answer = awaitJobs({ workerId: worker });
    await waitUntil(() => h.app.context.waitingWorkers.size === 1, { timeoutMs: 5_000 });
    const job = await createCanary();
    const { jobs } = await answer;

    expect(jobs).toHaveLength(1);
    const [handed] = jobs;
    expect(handed!.queue).toBe('interactive');
    expect(handed!.claimed!.job!.id).toBe(job.id);
    expect(handed!.claimed!.attempt).toBe(1);
    expect(handed!.claimed!.providerIdempotencyKey).toBe(job.id);
    expect(handed!.claimed!.heartbeatIntervalMs).toBeGreaterThan(0);
    const row = await jobRow(job.id);
    expect(row).toMatchObject({ status: 'running', lease_owner: worker, attempt_count: 1 });
    expect(await events(job.id)).toContainEqual(
      expect.objectContaining({ from_status: 'queued', to_status: 'running', actor: `worker:${worker}` }),
    );
    // Its dispatch is done: settled published, and nothing went to NATS.
    await waitUntil(async () => (await dispatchRow(job.id))[0]?.status === 'published', { timeoutMs: 5_000 });
    expect(await dispatchMessagesOf(job.id)).toBe(0);
    // The lease is this worker's as after ClaimJobs: its heartbeats and its outcome are accepted.
    const beat = await h.execution.heartbeat({ jobId: job.id, workerId: worker, progress: 10 });
    expect(beat.directive).toBe(jobsExecutionV1.HeartbeatDirective.CONTINUE);
    await h.execution.completeJob({ jobId: job.id, workerId: worker, outputAssetId: '', outputSha256: '' });
    expect((await jobRow(job.id)).status).toBe('succeeded');
  });

  it('answers empty after wait_ms, and a job created with no worker waiting goes through NATS', async () => {
    const started = Date.now();
    expect((await awaitJobs({ waitMs: 300 })).jobs).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(h.app.context.waitingWorkers.size).toBe(0);

    const job = await createCanary();
    await waitUntil(async () => (await dispatchMessagesOf(job.id)) === 1, { timeoutMs: 5_000 });
    expect((await jobRow(job.id)).status).toBe('queued');
  });

  it('leaves to NATS a job whose queue the waiting worker has no slot for', async () => {
    const answer = awaitJobs({ interactiveSlots: 0, backgroundSlots: 1, waitMs: 1_500 });
    await waitUntil(() => h.app.context.waitingWorkers.size === 1, { timeoutMs: 5_000 });
    const job = await createCanary(); // system.canary runs on the interactive queue
    await waitUntil(async () => (await dispatchMessagesOf(job.id)) === 1, { timeoutMs: 5_000 });
    expect((await answer).jobs).toEqual([]);
    expect((await jobRow(job.id)).status).toBe('queued');
  });

  it('gives each waiting worker no more jobs than its free slots; the rest go through NATS', async () => {
    const first = workerId();
    const second = workerId();
    const answers = [
      awaitJobs({ workerId: first, interactiveSlots: 1, backgroundSlots: 0 }),
      awaitJobs({ workerId: second, interactiveSlots: 1, backgroundSlots: 0 }),
    ];
    await waitUntil(() => h.app.context.waitingWorkers.size === 2, { timeoutMs: 5_000 });
    const created = await Promise.all([createCanary(), createCanary(), createCanary()]);
    const handed = (await Promise.all(answers)).flatMap((answer) => answer.jobs.map((job) => job.claimed!.job!.id));
    expect(handed).toHaveLength(2);
    expect(new Set(handed).size).toBe(2);
    const rest = created.filter((job) => !handed.includes(job.id));
    expect(rest).toHaveLength(1);
    await waitUntil(async () => (await dispatchMessagesOf(rest[0]!.id)) === 1, { timeoutMs: 5_000 });
    const owners = await Promise.all(handed.map(async (id) => (await jobRow(id)).lease_owner));
    expect(owners.sort()).toEqual([first, second].sort());
  });

  it("leaves to NATS a job a provider's gate may hold back", async () => {
    const pool = h.app.context.pool;
    await upsertProviderLimit(pool, {
      providerCode: choice.stylizer.providerCode,
      providerModel: '',
      maxConcurrent: 5,
      maxRequestsPerSecond: null,
      burst: null,
      updatedBy: 'test-admin',
    });
    try {
      const user = newUser();
      const inputAssetId = await uploadInputImage(h.media, user);
      const answer = awaitJobs({ waitMs: 1_500 });
      await waitUntil(() => h.app.context.waitingWorkers.size === 1, { timeoutMs: 5_000 });
      const job = (await h.jobs.createJob(stylizeRequest(choice, { userId: user, idempotencyKey: `g-${++seq}`, inputAssetId }))).job!;
      await waitUntil(async () => (await dispatchMessagesOf(job.id)) === 1, { timeoutMs: 5_000 });
      expect((await answer).jobs).toEqual([]);
      expect((await jobRow(job.id)).status).toBe('queued');
    } finally {
      await deleteProviderLimit(pool, choice.stylizer.providerCode, '');
    }
  });

  it('releases at once, uncharged, a job claimed for a worker that gave up its call meanwhile', async () => {
    const job = await createCanary(); // no worker waits: its dispatch goes through NATS, the job stays queued
    await waitUntil(async () => (await dispatchRow(job.id))[0]?.status === 'published', { timeoutMs: 5_000 });
    const [outbox] = await dispatchRow(job.id);
    const row: PublishableRow = { ...outbox, available_at: new Date(outbox.available_at) };

    const worker = workerId();
    const givenUp = new AbortController();
    const answer = h.app.context.waitingWorkers.wait(worker, { interactive: 1, background: 0 }, 10_000, givenUp.signal);
    const delivered = h.app.handOff.deliver([row]);
    givenUp.abort(); // while the claim for it runs
    expect([...(await delivered)]).toEqual([row.id]);
    expect(await answer).toEqual([]);

    const after = await jobRow(job.id);
    expect(after).toMatchObject({ status: 'queued', attempt_count: 0, lease_owner: null });
    expect(await events(job.id)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ from_status: 'queued', to_status: 'running', actor: `worker:${worker}` }),
        expect.objectContaining({ from_status: 'running', to_status: 'queued', detail: 'released: the waiting worker gave up its call' }),
      ]),
    );
    // Released with a new dispatch, which goes through NATS (nobody waits).
    await waitUntil(async () => (await dispatchMessagesOf(job.id)) === 2, { timeoutMs: 5_000 });
  });

  it('refuses a bad request with the field at fault, and changes nothing', async () => {
    const cases: [Partial<jobsExecutionV1.AwaitJobsRequest>, string][] = [
      [{ workerId: '' }, 'worker_id'],
      [{ workerId: 'has space' }, 'worker_id'],
      [{ interactiveSlots: -1 }, 'interactive_slots'],
      [{ backgroundSlots: 501 }, 'background_slots'],
      [{ interactiveSlots: 0, backgroundSlots: 0 }, 'interactive_slots'],
      [{ waitMs: 0 }, 'wait_ms'],
      [{ waitMs: 30_001 }, 'wait_ms'],
    ];
    for (const [request, field] of cases) {
      const error = await refusal(awaitJobs(request));
      expect(error.code, JSON.stringify(request)).toBe(ErrorCode.INVALID_ARGUMENT);
      expect(error.field, JSON.stringify(request)).toBe(field);
    }
    expect(h.app.context.waitingWorkers.size).toBe(0);
  });
});
