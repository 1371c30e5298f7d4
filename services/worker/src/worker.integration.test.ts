import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsEventsV1, jobsV1, mediaV1 } from '@atelier/contracts';
import { probeImage } from '@atelier/images';
import { jetstreamManager } from '@atelier/nats';
import { waitUntil } from '@atelier/testing';
import { CRASH_POINTS } from './domain/crash-points.js';
import {
  chargedFor,
  providerStats,
  startPlatform,
  stylizeRequest,
  uploadInput,
  waitForJob,
  type Platform,
} from './test-support/platform-harness.js';

let p: Platform;

beforeAll(async () => {
  p = await startPlatform({ workerEnv: { WORKER_CONCURRENCY_INTERACTIVE: '8', WORKER_CONCURRENCY_BACKGROUND: '4' } });
}, 120_000);

afterAll(async () => {
  await p?.stop();
});

let seq = 0;
const newUser = () => `worker-user-${process.pid}-${++seq}`;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function readAsset(assetId: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const message of p.mediaAsWorker.readAsset({ assetId })) {
    if (message.part?.$case === 'chunk') chunks.push(Buffer.from(message.part.chunk));
  }
  return Buffer.concat(chunks);
}

async function readyOutputsOf(userId: string): Promise<string[]> {
  // media's own schema, read directly: the test checks what no API would show (orphans).
  const { rows } = await p.db.query(`SELECT id FROM media.assets WHERE owner_user_id = $1 AND purpose = 'ai_output' AND status = 'ready'`, [
    userId,
  ]);
  return rows.map((r: { id: string }) => r.id);
}

async function createStylize(userId: string, prompt: string, input?: { assetId: string; bytes: Buffer }) {
  const uploaded = input ?? (await uploadInput(p.media, userId));
  const { job } = await p.jobs.createJob(await stylizeRequest(p, userId, uploaded.assetId, prompt, `k-${++seq}`));
  return { job: job!, input: uploaded };
}

describe('worker - end to end', () => {
  beforeAll(async () => {
    // The cap makes a hanging prediction time out in seconds instead of the definition's 120 s.
    await p.startWorker({ WORKER_TIMEOUT_CAP_MS: '4000' });
  }, 60_000);

  it('runs an image.stylize job to succeeded with a new PNG owned by the user, and announces it', async () => {
    const user = newUser();
    const { job, input } = await createStylize(user, 'my dog as pop art');
    const done = await waitForJob(p, job.id, user);
    expect(done).toMatchObject({ status: jobsV1.JobStatus.SUCCEEDED, progress: 100, attemptCount: 1 });
    const output = await p.media.getAsset({ assetId: done.outputAssetId!, callerUserId: user });
    expect(output.asset).toMatchObject({ ownerUserId: user, purpose: mediaV1.AssetPurpose.AI_OUTPUT, status: mediaV1.AssetStatus.READY });
    const bytes = await readAsset(done.outputAssetId!);
    expect(probeImage(bytes)).toMatchObject({ contentType: 'image/png' });
    expect(sha256(bytes)).not.toBe(sha256(input.bytes));
    expect(done.timings!.attempts).toHaveLength(1);

    const stats = await providerStats(p);
    expect(stats.by_key[job.id]).toEqual({ submissions: 1, requests: 1 });

    const jsm = await jetstreamManager(p.nats);
    const event = await jsm.streams.getMessage(p.topology.eventsStream, { last_by_subj: p.topology.eventSubject('succeeded') });
    expect(jobsEventsV1.JobLifecycleEvent.fromJSON(event!.json())).toMatchObject({
      jobId: expect.any(String),
      status: jobsV1.JobStatus.SUCCEEDED,
    });
  });

  it('rides out a vendor answering 503 to polls and downloads: one attempt, one charge', async () => {
    const user = newUser();
    // Two failing polls and two failing downloads cost 0.75 s of backoff each, well inside the
    // 4 s attempt cap this worker has for the hang cases (three each came close to it).
    const { job } = await createStylize(user, 'my dog as pop art #sim-flaky=2');
    const done = await waitForJob(p, job.id, user, { timeoutMs: 30_000 });
    expect(done).toMatchObject({ status: jobsV1.JobStatus.SUCCEEDED, attemptCount: 1 });
    expect(chargedFor(await providerStats(p), job.id)).toBe(1);
  });

  it('completes a system.canary at once', async () => {
    const user = newUser();
    const { job } = await p.jobs.createJob(
      jobsV1.CreateJobRequest.fromPartial({ userId: user, idempotencyKey: 'canary', jobType: 'system.canary' }),
    );
    expect(await waitForJob(p, job!.id, user)).toMatchObject({ status: jobsV1.JobStatus.SUCCEEDED, outputAssetId: undefined });
  });

  it('cancels a running job at the provider and ends it cancelled', async () => {
    const user = newUser();
    const { job } = await createStylize(user, 'a cat that never finishes #sim:hang');
    const running = await waitForJob(p, job.id, user, { until: (j) => j.status === jobsV1.JobStatus.RUNNING && j.progress > 0 });
    const details = await p.admin.getJobDetails({ jobId: running.id });
    const predictionId = details.job!.providerRequestId!;
    expect(predictionId).toBeTruthy();
    await p.jobs.cancelJob({ jobId: job.id, userId: user });
    const deadline = Date.now() + 10_000;
    let status = '';
    while (Date.now() < deadline && status !== 'canceled') {
      const prediction = (await (
        await fetch(`${p.providerUrl}/v1/predictions/${predictionId}`, { headers: { authorization: 'Bearer test' } })
      ).json()) as { status: string };
      status = prediction.status;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe('canceled');
    expect((await p.jobs.getJob({ jobId: job.id, userId: user })).job!.status).toBe(jobsV1.JobStatus.CANCELLED);
    expect(await readyOutputsOf(user)).toEqual([]);
  });

  it('ends every forced error class in its specified status and attempt count', async () => {
    const cases: [string, jobsV1.JobStatus, string | undefined, number][] = [
      ['#sim:prediction_failed', jobsV1.JobStatus.FAILED, 'PROVIDER_PREDICTION_FAILED', 3],
      ['#sim:unavailable', jobsV1.JobStatus.FAILED, 'PROVIDER_UNAVAILABLE', 3],
      ['#sim:rate_limit', jobsV1.JobStatus.FAILED, 'PROVIDER_RATE_LIMITED', 3],
      // image.stylize retries a refused output once (its validationRetries), whatever attempts remain.
      ['#sim:invalid_output', jobsV1.JobStatus.FAILED, 'VALIDATION_OUTPUT_UNDECODABLE', 2],
      ['#sim:content_safety', jobsV1.JobStatus.FAILED, 'CONTENT_SAFETY_REJECTED', 1],
      ['#sim:flagged', jobsV1.JobStatus.FAILED, 'CONTENT_SAFETY_FLAGGED', 1],
      ['#sim:credentials', jobsV1.JobStatus.FAILED, 'CREDENTIAL_INVALID', 1],
      ['#sim:hang', jobsV1.JobStatus.FAILED, 'TIMEOUT', 3],
      // The provider refuses our request as malformed: our bug, retried once.
      ['#sim:no-such-kind', jobsV1.JobStatus.FAILED, 'INTERNAL_PROVIDER_REQUEST_REJECTED', 2],
      ['#sim-once:prediction_failed', jobsV1.JobStatus.SUCCEEDED, undefined, 2],
    ];
    const created = await Promise.all(
      cases.map(async ([directive]) => {
        const user = newUser();
        return { user, job: (await createStylize(user, `a parrot ${directive}`)).job };
      }),
    );
    const finished = await Promise.all(created.map(({ user, job }) => waitForJob(p, job.id, user, { timeoutMs: 60_000 })));
    finished.forEach((job, i) => {
      const [directive, status, code, attempts] = cases[i]!;
      expect({ directive, status: job.status, code: job.errorCode, attempts: job.attemptCount }).toEqual({
        directive,
        status,
        code,
        attempts,
      });
      // A final failure says what happened and never promises another attempt.
      if (status === jobsV1.JobStatus.FAILED) expect(job.errorMessage).toMatch(/^(?!.*again).+$/i);
    });
  });
});

describe('worker - crash safety with kill -9', () => {
  beforeAll(async () => {
    await p.stopWorkers(); // each case decides which worker sees the job first
  });

  it.each(CRASH_POINTS)(
    'finishes the job on another worker after a SIGKILL %s, charging the provider once, leaving no orphan',
    async (point) => {
      const doomed = await p.startWorker({ WORKER_CRASH_POINT: point, WORKER_CONCURRENCY_INTERACTIVE: '1' });
      const user = newUser();
      const { job } = await createStylize(user, 'a hamster in space #sim-latency=800');
      // Only the doomed worker may pick the job up first: the others are not started yet.
      const exitCode = await new Promise<number | null>((resolve) =>
        doomed.child.once('exit', (code, signal) => resolve(signal === 'SIGKILL' ? -9 : code)),
      );
      expect(exitCode).toBe(-9);
      expect((await p.jobs.getJob({ jobId: job.id, userId: user })).job!.status).not.toBe(jobsV1.JobStatus.SUCCEEDED);

      const survivor = await p.startWorker({ WORKER_CONCURRENCY_INTERACTIVE: '1' });
      const done = await waitForJob(p, job.id, user, { timeoutMs: 45_000 });
      expect(done.status).toBe(jobsV1.JobStatus.SUCCEEDED);
      expect(done.attemptCount).toBe(2);
      expect(chargedFor(await providerStats(p), job.id)).toBe(1);
      expect(await readyOutputsOf(user)).toEqual([done.outputAssetId]);
      await survivor.stop();
    },
  );

  it('leaves no orphan when a SIGKILL after storing the output costs the job its last attempt', async () => {
    const doomed = await p.startWorker({ WORKER_CRASH_POINT: 'after-output-stored', WORKER_CONCURRENCY_INTERACTIVE: '1' });
    const user = newUser();
    const { job } = await createStylize(user, 'a ferret on the moon #sim-latency=300');
    // This attempt is the last one: when its lease expires, the reaper fails the job for good.
    await p.db.query('UPDATE jobs.generation_jobs SET max_attempts = 1 WHERE id = $1', [job.id]);
    const exitCode = await new Promise<number | null>((resolve) =>
      doomed.child.once('exit', (code, signal) => resolve(signal === 'SIGKILL' ? -9 : code)),
    );
    expect(exitCode).toBe(-9);
    expect(await readyOutputsOf(user), 'the output was stored before the crash').toHaveLength(1);

    const failed = await waitForJob(p, job.id, user, { timeoutMs: 20_000 });
    expect(failed).toMatchObject({ status: jobsV1.JobStatus.FAILED, errorCode: 'LEASE_EXPIRED', attemptCount: 1 });
    // Nobody is left to delete it but media, told by the job.failed event.
    const deadline = Date.now() + 10_000;
    while ((await readyOutputsOf(user)).length > 0) {
      if (Date.now() > deadline) throw new Error('the output of the failed job is still there');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(chargedFor(await providerStats(p), job.id)).toBe(1);
  });
});

async function metricTotal(worker: { address: string }, outcome: string): Promise<number> {
  const text = await (await fetch(`http://${worker.address}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('atelier_worker_jobs_total{') && line.includes(`outcome="${outcome}"`))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe('worker - scale out', () => {
  beforeAll(async () => {
    await p.stopWorkers();
  });

  it('drains 200 jobs with two worker processes, none processed twice', async () => {
    const user = newUser();
    const input = await uploadInput(p.media, user);
    const jobs = await Promise.all(
      Array.from({ length: 200 }, async () => (await createStylize(user, 'a crowd of cats #sim-latency=150', input)).job),
    );
    const workers = [await p.startWorker(), await p.startWorker()];
    const deadline = Date.now() + 90_000;
    for (;;) {
      const { rows } = await p.db.query(`SELECT count(*)::int AS n FROM jobs.generation_jobs WHERE user_id = $1 AND status = 'succeeded'`, [
        user,
      ]);
      if (rows[0].n === 200 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const { rows: statuses } = await p.db.query(
      `SELECT status, attempt_count, count(*)::int AS n FROM jobs.generation_jobs WHERE user_id = $1 GROUP BY 1, 2`,
      [user],
    );
    expect(statuses).toEqual([{ status: 'succeeded', attempt_count: 1, n: 200 }]);
    const { rows: claims } = await p.db.query(
      `SELECT count(*)::int AS n FROM jobs.job_events WHERE to_status = 'running' AND job_id = ANY($1)`,
      [jobs.map((j) => j.id)],
    );
    expect(claims[0].n).toBe(200);
    const stats = await providerStats(p);
    // Charged once each. A submit sent again inside the attempt after a transient failure (a
    // connection reset on a loaded machine: CI, 2026-12-04) carries the same idempotency key, and
    // the vendor counts it once; such resends are accidents, a few at most, never the rule.
    for (const job of jobs) expect(stats.by_key[job.id]?.submissions, job.id).toBe(1);
    expect(jobs.filter((job) => stats.by_key[job.id]!.requests > 1).length).toBeLessThanOrEqual(10);
    const perWorker = await Promise.all(workers.map((worker) => metricTotal(worker, 'succeeded')));
    expect(perWorker[0]! + perWorker[1]!).toBe(200);
    expect(Math.min(...perWorker)).toBeGreaterThan(0);
  }, 120_000);
});

async function metricSum(address: string, name: string): Promise<number> {
  const text = await (await fetch(`http://${address}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe('worker - jobs handed over while it waits (AwaitJobs)', () => {
  beforeAll(async () => {
    await p.stopWorkers();
  });

  const jobsMetrics = () => `127.0.0.1:${p.processes.jobs.metricsPort}`;
  const waitingWorkers = () => metricSum(jobsMetrics(), 'atelier_jobs_waiting_workers');

  async function runJobs(user: string, count: number) {
    const input = await uploadInput(p.media, user);
    const jobs = await Promise.all(
      Array.from({ length: count }, async () => (await createStylize(user, 'a cat #sim-latency=100', input)).job),
    );
    for (const job of jobs)
      expect(await waitForJob(p, job.id, user, { timeoutMs: 30_000 })).toMatchObject({
        status: jobsV1.JobStatus.SUCCEEDED,
        attemptCount: 1,
      });
    const stats = await providerStats(p);
    for (const job of jobs) expect(chargedFor(stats, job.id), job.id).toBe(1);
  }

  it('runs the jobs created while it waits straight from jobs, each claimed once and charged once', async () => {
    // Two slots: two calls at jobs, one slot each.
    const worker = await p.startWorker({ WORKER_CONCURRENCY_INTERACTIVE: '2', WORKER_CONCURRENCY_BACKGROUND: '0' });
    try {
      await waitUntil(async () => (await waitingWorkers()) === 2, { timeoutMs: 10_000 });
      await runJobs(newUser(), 4);
      expect(await metricTotal(worker, 'succeeded')).toBe(4);
      // The first two at least: it waited with both slots free when they were created.
      expect(await metricSum(worker.address, 'atelier_worker_jobs_handed_over_total')).toBeGreaterThanOrEqual(2);
      expect(await metricSum(jobsMetrics(), 'atelier_jobs_handed_over_total')).toBeGreaterThanOrEqual(2);
    } finally {
      await p.stopWorkers();
    }
  }, 60_000);

  it('with WORKER_AWAIT_JOBS=false waits for nothing: every job comes through NATS', async () => {
    const worker = await p.startWorker({ WORKER_AWAIT_JOBS: 'false' });
    try {
      await runJobs(newUser(), 2);
      expect(await metricTotal(worker, 'succeeded')).toBe(2);
      expect(await metricSum(worker.address, 'atelier_worker_jobs_handed_over_total')).toBe(0);
      expect(await waitingWorkers()).toBe(0);
    } finally {
      await p.stopWorkers();
    }
  }, 60_000);
});

describe('worker - graceful shutdown', () => {
  beforeAll(async () => {
    await p.stopWorkers();
  });

  it('finishes a running job on SIGTERM, then exits 0', async () => {
    const worker = await p.startWorker({ WORKER_CONCURRENCY_INTERACTIVE: '1', WORKER_DRAIN_TIMEOUT_MS: '15000' });
    const user = newUser();
    const { job } = await createStylize(user, 'a slow tortoise #sim-latency=2500');
    await waitForJob(p, job.id, user, { until: (j) => j.status === jobsV1.JobStatus.RUNNING });
    expect(await worker.stop()).toBe(0);
    expect((await p.jobs.getJob({ jobId: job.id, userId: user })).job!.status).toBe(jobsV1.JobStatus.SUCCEEDED);
  });

  it('hands a job back when the drain timeout passes first; another worker resumes the same prediction', async () => {
    const worker = await p.startWorker({ WORKER_CONCURRENCY_INTERACTIVE: '1', WORKER_DRAIN_TIMEOUT_MS: '300' });
    const user = newUser();
    const { job } = await createStylize(user, 'a very slow snail #sim-latency=4000');
    await waitForJob(p, job.id, user, { until: (j) => j.status === jobsV1.JobStatus.RUNNING && j.progress > 0 });
    expect(await worker.stop()).toBe(0);
    const handedBack = (await p.jobs.getJob({ jobId: job.id, userId: user })).job!;
    expect(handedBack).toMatchObject({ status: jobsV1.JobStatus.QUEUED, attemptCount: 0 });
    await p.startWorker();
    expect(await waitForJob(p, job.id, user)).toMatchObject({ status: jobsV1.JobStatus.SUCCEEDED, attemptCount: 1 });
    expect(chargedFor(await providerStats(p), job.id)).toBe(1);
  });
});

describe('worker - a dispatch stream that disappears', () => {
  beforeAll(async () => {
    await p.stopWorkers();
  });

  it('declares the stream and its consumers again when they vanish, and runs the next job', async () => {
    const worker = await p.startWorker();
    const jsm = await jetstreamManager(p.nats);
    await jsm.streams.delete(p.topology.jobsStream); // and with it the worker consumers
    // Nothing is published meanwhile, so it is the worker, told "consumer deleted", that restores them.
    const deadline = Date.now() + 15_000;
    for (;;) {
      const restored = await jsm.consumers.info(p.topology.jobsStream, p.topology.consumerName('interactive')).then(
        () => true,
        () => false,
      );
      if (restored) break;
      if (Date.now() > deadline) throw new Error('the worker did not declare its consumer again');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const user = newUser();
    const { job } = await p.jobs.createJob(
      jobsV1.CreateJobRequest.fromPartial({ userId: user, idempotencyKey: `after-restore-${++seq}`, jobType: 'system.canary' }),
    );
    const done = await waitForJob(p, job!.id, user, { timeoutMs: 20_000 }).catch(async (error: Error) => {
      const outbox = await p.db.query('SELECT status, attempt_count, last_error FROM jobs.outbox WHERE aggregate_id = $1', [job!.id]);
      throw new Error(`${error.message}\noutbox ${JSON.stringify(outbox.rows)}\nworker output:\n${worker.output()}`);
    });
    expect(done.status).toBe(jobsV1.JobStatus.SUCCEEDED);
    await worker.stop();
  });
});
