import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsExecutionV1, jobsV1 } from '@atelier/contracts';
import { ErrorCode } from '@atelier/errors';
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
 * Start deadlines through the jobs API, with the real sweep running every 200 ms and no worker:
 * nothing claims a job unless the test does. The statements themselves are tested in
 * db/transitions/start-deadline.integration.test.ts.
 */

let h: JobsHarness;
let choice: Awaited<ReturnType<typeof catalogChoice>>;

beforeAll(async () => {
  h = await startJobsHarness({ START_DEADLINE_SWEEP_INTERVAL_MS: 200, QUOTA_DAILY_LIMIT: 1, QUOTA_MAX_IN_FLIGHT: 1 });
  choice = await catalogChoice(h.catalog);
}, 90_000);

afterAll(async () => {
  await h?.stop();
});

let userSeq = 0;
const newUser = () => `deadline-${process.pid}-${++userSeq}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function untilEnded(jobId: string, userId: string, timeoutMs = 5_000): Promise<jobsV1.Job> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const { job } = await h.jobs.getJob({ jobId, userId });
    if (job!.status !== jobsV1.JobStatus.QUEUED && job!.status !== jobsV1.JobStatus.RUNNING) return job!;
    if (Date.now() > giveUpAt) throw new Error(`job ${jobId} still ${job!.status} after ${timeoutMs} ms`);
    await sleep(50);
  }
}

describe('jobs - start deadlines', () => {
  it('ends a job no worker started within startWithinSeconds=1 about a second later, announced on NATS, with no attempt', async () => {
    const user = newUser();
    const announced = h.nats.subscribe(h.topology.eventSubject('cancelled'));
    const createdAt = Date.now();
    const { job } = await h.jobs.createJob({ ...canaryRequest(user, 'deadline-1s'), startWithinSeconds: 1 });
    expect(job!.startDeadlineAt!.getTime() - job!.createdAt!.getTime()).toBe(1_000);

    const ended = await untilEnded(job!.id, user);
    const endedAfterMs = Date.now() - createdAt;
    expect(ended).toMatchObject({
      status: jobsV1.JobStatus.CANCELLED,
      errorCode: 'START_DEADLINE_EXCEEDED',
      attemptCount: 0,
      startedAt: undefined,
      cancelRequestedAt: undefined,
    });
    expect(ended.errorMessage).toContain('within the 1 seconds');
    expect(ended.completedAt!.getTime() - ended.createdAt!.getTime()).toBeGreaterThanOrEqual(1_000);
    // The deadline, then at most a sweep interval (200 ms) and a poll (50 ms), with room for a busy machine.
    expect(endedAfterMs).toBeLessThan(2_500);

    for await (const message of announced) {
      const event = message.json<{ jobId: string; status: string; errorCode?: string; attempt: number }>();
      if (event.jobId !== job!.id) continue;
      expect(event).toMatchObject({ status: 'JOB_STATUS_CANCELLED', errorCode: 'START_DEADLINE_EXCEEDED', attempt: 0 });
      break;
    }
    announced.unsubscribe();
    expect(await h.execution.claimJob({ jobId: job!.id, workerId: 'late-worker' })).toMatchObject({
      outcome: jobsExecutionV1.ClaimOutcome.TERMINAL,
    });
  });

  it('refuses a claim past the deadline while the sweep has not run yet: TERMINAL, and the job is not started', async () => {
    await h.app.deadlineSweeper.stop();
    try {
      const user = newUser();
      const { job } = await h.jobs.createJob({ ...canaryRequest(user, 'deadline-no-sweep'), startWithinSeconds: 1 });
      await sleep(1_100);
      expect(await h.execution.claimJob({ jobId: job!.id, workerId: 'worker-a' })).toMatchObject({
        outcome: jobsExecutionV1.ClaimOutcome.TERMINAL,
      });
      expect((await h.jobs.getJob({ jobId: job!.id, userId: user })).job).toMatchObject({
        status: jobsV1.JobStatus.QUEUED,
        attemptCount: 0,
      });
      expect(await h.app.deadlineSweeper.runOnce()).toBe(1);
      expect((await h.jobs.getJob({ jobId: job!.id, userId: user })).job).toMatchObject({
        status: jobsV1.JobStatus.CANCELLED,
        errorCode: 'START_DEADLINE_EXCEEDED',
      });
    } finally {
      h.app.deadlineSweeper.start();
    }
  });

  it('runs a job claimed in time to its end, whatever its deadline does meanwhile', async () => {
    const user = newUser();
    const { job } = await h.jobs.createJob({ ...canaryRequest(user, 'deadline-in-time'), startWithinSeconds: 1 });
    expect(await h.execution.claimJob({ jobId: job!.id, workerId: 'worker-a' })).toMatchObject({
      outcome: jobsExecutionV1.ClaimOutcome.CLAIMED,
    });
    await sleep(1_400);
    await h.execution.completeJob({ jobId: job!.id, workerId: 'worker-a', outputAssetId: '', outputSha256: '' });
    expect((await h.jobs.getJob({ jobId: job!.id, userId: user })).job).toMatchObject({
      status: jobsV1.JobStatus.SUCCEEDED,
      attemptCount: 1,
      errorCode: undefined,
    });
  });

  it("gives the quota back: with 1 a day and 1 in flight, the user's next generation is accepted once the first expired", async () => {
    const user = newUser();
    const stylize = async (key: string, startWithinSeconds?: number) =>
      stylizeRequest(choice, {
        userId: user,
        idempotencyKey: key,
        inputAssetId: await uploadInputImage(h.media, user),
        prompt: 'my dog, in a hurry',
        startWithinSeconds,
      });
    const first = (await h.jobs.createJob(await stylize('first', 1))).job!;
    const second = await stylize('second');
    expect(await refusal(h.jobs.createJob(second))).toMatchObject({
      code: ErrorCode.RESOURCE_EXHAUSTED,
      reason: 'GENERATION_QUOTA_EXCEEDED',
    });
    expect(await untilEnded(first.id, user)).toMatchObject({ status: jobsV1.JobStatus.CANCELLED, errorCode: 'START_DEADLINE_EXCEEDED' });
    expect((await h.jobs.createJob(second)).created).toBe(true);
  });

  it('refuses a deadline outside 1..86400 seconds as INVALID_ARGUMENT naming start_within_seconds, writing nothing', async () => {
    const user = newUser();
    for (const startWithinSeconds of [0, -5, 86_401]) {
      expect(await refusal(h.jobs.createJob({ ...canaryRequest(user, `bad-${startWithinSeconds}`), startWithinSeconds }))).toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        field: 'start_within_seconds',
      });
    }
    const { rows } = await h.db.query('SELECT count(*)::int AS n FROM jobs.generation_jobs WHERE user_id = $1', [user]);
    expect(rows[0].n).toBe(0);
  });

  it('makes the deadline part of the idempotent request: the same one replays, another is a mismatch', async () => {
    const user = newUser();
    const request = { ...canaryRequest(user, 'deadline-replay'), startWithinSeconds: 600 };
    const first = await h.jobs.createJob(request);
    expect(await h.jobs.createJob(request)).toMatchObject({ created: false, job: { id: first.job!.id } });
    expect(await refusal(h.jobs.createJob({ ...request, startWithinSeconds: 30 }))).toMatchObject({
      code: ErrorCode.ALREADY_EXISTS,
      reason: 'IDEMPOTENCY_PAYLOAD_MISMATCH',
    });
    expect(await refusal(h.jobs.createJob({ ...request, startWithinSeconds: undefined }))).toMatchObject({
      reason: 'IDEMPOTENCY_PAYLOAD_MISMATCH',
    });
  });
});
