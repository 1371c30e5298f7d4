// A worker stops answering while its job runs at the vendor: frozen (SIGSTOP: a stalled VM, a long
// pause), or cut off from jobs and NATS (a partition). Its lease lapses and another worker takes
// the job over — within the lease + 5 s (docs/fault-model.md), resuming the prediction the first
// recorded: charged once. When the first comes back (SIGCONT, the partition healed) its lease is
// gone: it neither completes the job nor pays again. A cancel of its job reaches the vendor
// through the live worker: the frozen one's pulls lapse within WORKER_PULL_EXPIRES_MS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@atelier/testing';
import { startChaosPlatform, type ChaosPlatform } from './chaos-platform.js';
import { startPartitionableLink } from './partitionable-link.js';
import {
  TAKEOVER_BOUND_MS,
  TAKEOVER_SETTINGS,
  freezeHolderMidJob,
  jobHeldMidPrediction,
  lastLeaseOf,
  readTakeoverLegs,
  workerOutcomes,
  type FrozenHolder,
} from './worker-freeze.js';

let chaos: ChaosPlatform;
beforeAll(async () => {
  chaos = await startChaosPlatform({ workers: 2, ...TAKEOVER_SETTINGS });
});
afterAll(async () => {
  await chaos?.stop();
});

/** The job succeeds on the other worker within the bound, charged once. Answers the job as it ended. */
async function expectTakenOver(holder: FrozenHolder) {
  const { api, db } = chaos;
  const lease = await lastLeaseOf(db, holder, 60_000);
  const job = await api.waitTerminal(holder.jobId, 60_000);
  const legs = await readTakeoverLegs(db, holder, lease);
  console.log(`takeover legs (ms after the worker stopped answering): ${JSON.stringify(legs)}`);
  expect(job.status).toBe('succeeded');
  expect(job.attempts.count).toBe(2);
  expect(legs.completedBy).not.toBe(`worker:${holder.frozenOwner}`);
  expect(legs.completedBy).toBe(legs.claimedBy);
  expect(legs.succeeded!, 'succeeded within the lease + 5 s').toBeLessThanOrEqual(TAKEOVER_BOUND_MS);
  expect(await chaos.charges(holder.jobId)).toBe(1);
  return { job, predictionId: await chaos.recordedPrediction(holder.jobId) };
}

/** Back, the first worker gives the job up (its heartbeat or completion refused) and changes nothing. */
async function expectBackChangesNothing(holder: FrozenHolder, ended: Awaited<ReturnType<typeof expectTakenOver>>) {
  const { api, db } = chaos;
  await waitUntil(async () => (await workerOutcomes(holder.frozen, 'lease_lost')) === 1, {
    what: 'the worker back to give the job up (lease_lost)',
    timeoutMs: 30_000,
  });
  expect(await workerOutcomes(holder.frozen, 'succeeded')).toBe(0);
  expect(await api.getJob(holder.jobId)).toMatchObject({
    status: 'succeeded',
    outputAssetId: ended.job.outputAssetId,
    version: ended.job.version,
  });
  expect(await chaos.recordedPrediction(holder.jobId)).toBe(ended.predictionId);
  expect(await chaos.charges(holder.jobId)).toBe(1);
  const count = async (sql: string) => (await db.query<{ n: number }>(sql, [holder.jobId])).rows[0]!.n;
  expect(await count(`SELECT count(*)::int AS n FROM jobs.provider_calls WHERE job_id = $1 AND billable`)).toBe(1);
  expect(await count(`SELECT count(*)::int AS n FROM jobs.job_events WHERE job_id = $1 AND to_status = 'succeeded'`)).toBe(1);
}

describe('chaos - a worker that stops answering mid-job', () => {
  it('SIGSTOP while the vendor works: another worker completes the job within the lease + 5 s, charged once; woken, the first changes nothing', async () => {
    // 8 s at the vendor: the freeze comes while it works, and the prediction is ready when the
    // other worker resumes it.
    const holder = await freezeHolderMidJob(chaos, 'frozen-holder', 8_000);
    const ended = await expectTakenOver(holder);
    holder.frozen.resume();
    await expectBackChangesNothing(holder, ended);
  });

  it("a cancel of the frozen worker's job reaches the vendor within a second, through the live worker", async () => {
    const { api } = chaos;
    const holder = await freezeHolderMidJob(chaos, 'frozen-cancel', 30_000);
    const predictionId = await chaos.recordedPrediction(holder.jobId);
    // The frozen worker's provider-cancel pull, sent before the freeze, has lapsed by now
    // (WORKER_PULL_EXPIRES_MS, 5 s): a task published now goes to the live worker's pull.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    try {
      const cancelSentAt = Date.now();
      const cancelled = await api.call('POST', `/api/v1/creation/jobs/${holder.jobId}/cancel`);
      expect(cancelled.status).toBe(200);
      await waitUntil(async () => (await chaos.prediction(predictionId!)).status === 'canceled', {
        what: 'the vendor prediction is canceled',
        timeoutMs: 40_000,
        intervalMs: 20,
      });
      expect(Date.parse((await chaos.prediction(predictionId!)).completed_at!) - cancelSentAt).toBeLessThan(1_000);
      expect(await chaos.charges(holder.jobId)).toBe(1);
    } finally {
      holder.frozen.resume();
    }
  });

  it('SIGSTOP while it waits for jobs (AwaitJobs): a job handed to it starts on another worker within the lease + 5 s; woken, it leaves it alone', async () => {
    const { api, db, platform } = chaos;
    await platform.stopWorkers();
    const waiting = async () => {
      const text = await (await fetch(`http://127.0.0.1:${platform.jobs.metricsPort}/metrics`)).text();
      return Number(
        text
          .split('\n')
          .find((line) => line.startsWith('atelier_jobs_waiting_workers{'))
          ?.split(' ')
          .at(-1) ?? 0,
      );
    };
    // A long wait: the frozen worker stays first in line when the job comes. One slot: one call.
    const frozen = await platform.startWorker({
      WORKER_AWAIT_WAIT_MS: '30000',
      WORKER_CONCURRENCY_INTERACTIVE: '1',
      WORKER_CONCURRENCY_BACKGROUND: '0',
    });
    await waitUntil(async () => (await waiting()) === 1, { what: 'the first worker to wait at jobs', timeoutMs: 10_000 });
    frozen.pause();
    try {
      await platform.startWorker();
      await waitUntil(async () => (await waiting()) >= 2, { what: 'the second worker to wait at jobs too', timeoutMs: 10_000 });
      const input = await api.uploadPhoto();
      const created = await api.createJob(await api.stylizeBody(input, 'handed to a frozen worker #sim-latency=500'), 'frozen-waiter');
      expect(created.status).toBe(201);
      const jobId: string = created.body.job.id;
      const createdAt = Date.now();
      let firstClaimBy = '';
      await waitUntil(
        async () => {
          const { rows } = await db.query<{ actor: string }>(
            `SELECT actor FROM jobs.job_events WHERE job_id = $1 AND to_status = 'running' ORDER BY id LIMIT 1`,
            [jobId],
          );
          firstClaimBy = rows[0]?.actor ?? '';
          return firstClaimBy !== '';
        },
        { what: 'the job to be claimed', timeoutMs: 10_000 },
      );
      // The scenario: the first claim is the frozen worker's (its pid is in its worker id).
      expect(firstClaimBy.split('/')[1], await chaos.jobStory(jobId)).toBe(String(frozen.child.pid));

      const job = await api.waitTerminal(jobId, 60_000);
      expect(job.status, await chaos.jobStory(jobId)).toBe('succeeded');
      expect(job.attempts.count).toBe(2); // the lost claim counts, as any expired lease does
      const done = await db.query<{ actor: string; occurred_at: Date }>(
        `SELECT actor, occurred_at FROM jobs.job_events WHERE job_id = $1 AND to_status = 'succeeded'`,
        [jobId],
      );
      console.log(`a job handed to a frozen worker succeeded ${done.rows[0]!.occurred_at.getTime() - createdAt} ms after its creation`);
      expect(done.rows[0]!.actor.split('/')[1]).not.toBe(String(frozen.child.pid));
      expect(done.rows[0]!.occurred_at.getTime() - createdAt, 'succeeded within the lease + 5 s').toBeLessThanOrEqual(TAKEOVER_BOUND_MS);
      expect(await chaos.charges(jobId)).toBe(1);

      // Woken, it reads the answer its lease outlived: it starts nothing of it.
      frozen.resume();
      await waitUntil(() => frozen.output().includes('a handed-over job came after its lease expired'), {
        what: 'the woken worker to read the answer and leave the job alone',
        timeoutMs: 10_000,
      });
      expect(await workerOutcomes(frozen, 'succeeded')).toBe(0);
      expect(await workerOutcomes(frozen, 'lease_lost')).toBe(0);
      expect(await chaos.charges(jobId)).toBe(1);
    } finally {
      frozen.resume();
      await platform.stopWorkers();
    }
  });

  it('cut off from jobs and NATS (a partition): the same, and healed, it is refused and changes nothing', async () => {
    const { platform } = chaos;
    // The worker to cut off reaches jobs and NATS through links the test can cut (the vendor and
    // media it still reaches: it finishes the job, and cannot report it); it is alone when the job
    // comes, so it is the one holding it.
    await platform.stopWorkers();
    const jobsLink = await startPartitionableLink({ host: '127.0.0.1', port: platform.jobs.port });
    const natsLink = await startPartitionableLink({ host: '127.0.0.1', port: Number(new URL(platform.natsUrl).port) });
    try {
      const cutOff = await platform.startWorker({ JOBS_ADDR: jobsLink.address, NATS_URL: `nats://${natsLink.address}` });
      // 12 s at the vendor: the other worker starts meanwhile.
      const { jobId, holder, owner } = await jobHeldMidPrediction(chaos, 'partitioned-holder', 12_000);
      expect(holder).toBe(cutOff);
      await platform.startWorker();
      jobsLink.partition();
      natsLink.partition();
      const cut: FrozenHolder = { jobId, frozen: cutOff, frozenOwner: owner, frozenAt: Date.now() };
      const ended = await expectTakenOver(cut);
      jobsLink.heal();
      natsLink.heal();
      await expectBackChangesNothing(cut, ended);
    } finally {
      await platform.stopWorkers();
      await jobsLink.close();
      await natsLink.close();
    }
  });
});
