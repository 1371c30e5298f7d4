import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsExecutionV1, jobsV1 } from '@atelier/contracts';
import { createSqlPool } from '@atelier/db';
import { ErrorCode } from '@atelier/errors';
import { MAX_IMAGE_SIDE_PX, MIN_IMAGE_SIDE_PX } from '@atelier/images';
import { createLogger } from '@atelier/logging';
import { rangeChecksOf, TEST_OPERATOR_ACTOR } from '@atelier/testing';
import { createRegistry } from './definitions/index.js';
import { LeaseReaper } from './background/lease-reaper.js';
import {
  canaryRequest,
  catalogChoice,
  putOutputImage,
  refusal,
  startJobsHarness,
  stylizeRequest,
  uploadInputImage,
  type JobsHarness,
} from './test-support/jobs-harness.js';

const { ClaimOutcome, HeartbeatDirective, StopReason, ErrorClass, FailOutcome } = jobsExecutionV1;

let h: JobsHarness;
let choice: Awaited<ReturnType<typeof catalogChoice>>;

beforeAll(async () => {
  h = await startJobsHarness({ QUOTA_MAX_IN_FLIGHT: 1000, QUOTA_DAILY_LIMIT: 100000, QUOTA_MONTHLY_LIMIT: 100000 });
  choice = await catalogChoice(h.catalog);
}, 90_000);

afterAll(async () => {
  await h?.stop();
});

let seq = 0;
const newUser = () => `exec-user-${process.pid}-${++seq}`;
const newCanary = async (user = newUser()) => (await h.jobs.createJob(canaryRequest(user, `c-${++seq}`))).job!;
const newStylize = async (user: string) =>
  (
    await h.jobs.createJob(
      stylizeRequest(choice, { userId: user, idempotencyKey: `s-${++seq}`, inputAssetId: await uploadInputImage(h.media, user) }),
    )
  ).job!;

const row = async (jobId: string) => (await h.db.query('SELECT * FROM jobs.generation_jobs WHERE id = $1', [jobId])).rows[0];

/** Moves a running job's lease into the past, as if its worker had died a while ago. */
async function expireLease(jobId: string) {
  await h.db.query(
    `UPDATE jobs.generation_jobs SET started_at = now() - interval '10 minutes', lease_expires_at = now() - interval '1 second' WHERE id = $1`,
    [jobId],
  );
}

/** Makes a requeued job due now instead of after its backoff. */
async function makeDue(jobId: string) {
  await h.db.query(`UPDATE jobs.generation_jobs SET next_attempt_at = now() WHERE id = $1`, [jobId]);
}

const failRequest = (
  jobId: string,
  workerId: string,
  errorClass: jobsExecutionV1.ErrorClass,
  errorCode: string,
  retryable = true,
  abandonProviderRequest = false,
) => ({
  jobId,
  workerId,
  errorClass,
  errorCode,
  publicMessage: '',
  internalMessage: `internal detail for ${errorCode}`,
  retryable,
  abandonProviderRequest,
});

describe('execution - ClaimJob', () => {
  it('leases a queued job to one worker with everything it needs', async () => {
    const job = await newCanary();
    const { outcome, claimed } = await h.execution.claimJob({ jobId: job.id, workerId: 'w1' });
    expect(outcome).toBe(ClaimOutcome.CLAIMED);
    expect(claimed).toMatchObject({ attempt: 1, timeoutMs: 10_000, heartbeatIntervalMs: 20_000, contentSafety: false });
    expect(claimed!.job).toMatchObject({ id: job.id, status: jobsV1.JobStatus.RUNNING, attemptCount: 1 });
    expect(claimed!.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(await row(job.id)).toMatchObject({ status: 'running', lease_owner: 'w1', attempt_count: 1 });
  });

  it('gives exactly one lease to 10 workers claiming one job at once', async () => {
    const job = await newCanary();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => h.execution.claimJob({ jobId: job.id, workerId: `racer-${i}` })),
    );
    const winners = results.map((r, i) => [r, `racer-${i}`] as const).filter(([r]) => r.outcome === ClaimOutcome.CLAIMED);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.outcome === ClaimOutcome.ALREADY_RUNNING)).toHaveLength(9);
    const current = await row(job.id);
    expect(current.attempt_count).toBe(1);
    expect(current.lease_owner).toBe(winners[0]![1]);
    expect(
      Number(
        (await h.db.query(`SELECT count(*) AS n FROM jobs.job_events WHERE job_id = $1 AND to_status = 'running'`, [job.id])).rows[0].n,
      ),
    ).toBe(1);
  });

  it('tells the worker what to do with a job it cannot claim', async () => {
    const finished = await newCanary();
    await h.jobs.cancelJob({ jobId: finished.id, userId: finished.userId });
    expect((await h.execution.claimJob({ jobId: finished.id, workerId: 'w' })).outcome).toBe(ClaimOutcome.TERMINAL);
    expect((await h.execution.claimJob({ jobId: '019a0000-0000-7000-8000-0000000000ff', workerId: 'w' })).outcome).toBe(
      ClaimOutcome.NOT_FOUND,
    );
    const later = await newCanary();
    await h.db.query(`UPDATE jobs.generation_jobs SET next_attempt_at = now() + interval '1 hour' WHERE id = $1`, [later.id]);
    const notDue = await h.execution.claimJob({ jobId: later.id, workerId: 'w' });
    expect(notDue.outcome).toBe(ClaimOutcome.NOT_DUE);
    expect(notDue.notBefore!.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    expect(await refusal(h.execution.claimJob({ jobId: later.id, workerId: 'has space' }))).toMatchObject({ field: 'worker_id' });
  });
});

describe('execution - Heartbeat', () => {
  it('extends the lease and records progress that never moves backwards', async () => {
    const job = await newCanary();
    await h.execution.claimJob({ jobId: job.id, workerId: 'hb' });
    await h.db.query(`UPDATE jobs.generation_jobs SET lease_expires_at = now() + interval '5 seconds' WHERE id = $1`, [job.id]);
    const beat = await h.execution.heartbeat({ jobId: job.id, workerId: 'hb', progress: 60 });
    expect(beat.directive).toBe(HeartbeatDirective.CONTINUE);
    expect(beat.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 50_000);
    await h.execution.heartbeat({ jobId: job.id, workerId: 'hb', progress: 30 });
    expect((await row(job.id)).progress).toBe(60);
    expect(await refusal(h.execution.heartbeat({ jobId: job.id, workerId: 'hb', progress: 101 }))).toMatchObject({ field: 'progress' });
  });

  it('tells a worker without the lease to stop', async () => {
    const job = await newCanary();
    await h.execution.claimJob({ jobId: job.id, workerId: 'owner' });
    expect(await h.execution.heartbeat({ jobId: job.id, workerId: 'intruder', progress: 1 })).toMatchObject({
      directive: HeartbeatDirective.STOP,
      stopReason: StopReason.LEASE_LOST,
    });
    await h.execution.completeJob({ jobId: job.id, workerId: 'owner', outputAssetId: '', outputSha256: '' });
    expect(await h.execution.heartbeat({ jobId: job.id, workerId: 'owner', progress: 1 })).toMatchObject({
      directive: HeartbeatDirective.STOP,
      stopReason: StopReason.JOB_NOT_RUNNING,
    });
  });
});

describe('execution - RecordProviderRequest (L2)', () => {
  it('records the request id once, accepts the same id again, and refuses another', async () => {
    const user = newUser();
    const job = await newStylize(user);
    const first = await h.execution.claimJob({ jobId: job.id, workerId: 'p1' });
    expect(first.claimed).toMatchObject({
      providerIdempotencyKey: job.id,
      providerRequestGeneration: 0,
      providerRequestId: undefined,
      contentSafety: true,
      timeoutMs: 120_000,
    });
    await h.execution.recordProviderRequest({ jobId: job.id, workerId: 'p1', providerRequestId: 'pred_123' });
    await h.execution.recordProviderRequest({ jobId: job.id, workerId: 'p1', providerRequestId: 'pred_123' });
    expect(
      await refusal(h.execution.recordProviderRequest({ jobId: job.id, workerId: 'p1', providerRequestId: 'pred_999' })),
    ).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'PROVIDER_REQUEST_CONFLICT',
    });
    expect(
      await refusal(h.execution.recordProviderRequest({ jobId: job.id, workerId: 'other', providerRequestId: 'pred_123' })),
    ).toMatchObject({
      code: ErrorCode.ABORTED,
      reason: 'LEASE_LOST',
    });
  });

  it('hands the recorded request to the next attempt after a crash, an internal error or a timeout, and a fresh key only once it is given up', async () => {
    const job = await newStylize(newUser());
    await h.execution.claimJob({ jobId: job.id, workerId: 'r1' });
    await h.execution.recordProviderRequest({ jobId: job.id, workerId: 'r1', providerRequestId: 'pred_a' });
    await expireLease(job.id); // the worker crashed while polling
    await h.app.reaper.runOnce();
    await makeDue(job.id);
    expect((await h.execution.claimJob({ jobId: job.id, workerId: 'r2' })).claimed).toMatchObject({
      attempt: 2,
      providerRequestId: 'pred_a',
      providerIdempotencyKey: job.id,
    });
    await h.db.query('UPDATE jobs.generation_jobs SET max_attempts = 5 WHERE id = $1', [job.id]);
    await h.execution.failJob(failRequest(job.id, 'r2', ErrorClass.INTERNAL, 'INTERNAL_MEDIA_WRITE'));
    await makeDue(job.id);
    expect((await h.execution.claimJob({ jobId: job.id, workerId: 'r3' })).claimed).toMatchObject({
      attempt: 3,
      providerRequestId: 'pred_a',
      providerIdempotencyKey: job.id,
    });
    // The attempt ran out of time while the vendor was slow: the next one polls the same prediction.
    await h.execution.failJob(failRequest(job.id, 'r3', ErrorClass.TIMEOUT, 'TIMEOUT'));
    await makeDue(job.id);
    expect((await h.execution.claimJob({ jobId: job.id, workerId: 'r4' })).claimed).toMatchObject({
      attempt: 4,
      providerRequestId: 'pred_a',
      providerIdempotencyKey: job.id,
    });
    // The vendor failed the prediction itself: given up, and the next attempt submits anew.
    await h.execution.failJob(failRequest(job.id, 'r4', ErrorClass.PROVIDER, 'PROVIDER_PREDICTION_FAILED', true, true));
    await makeDue(job.id);
    expect((await h.execution.claimJob({ jobId: job.id, workerId: 'r5' })).claimed).toMatchObject({
      attempt: 5,
      providerRequestId: undefined,
      providerIdempotencyKey: `${job.id}:1`,
      providerRequestGeneration: 1,
    });
  });

  it("retries refused outputs with a fresh prediction at most the type's validationRetries times, then fails with attempts left", async () => {
    const job = await newStylize(newUser());
    await h.execution.claimJob({ jobId: job.id, workerId: 'v1' });
    await h.execution.recordProviderRequest({ jobId: job.id, workerId: 'v1', providerRequestId: `pred_blank_${job.id}` });
    const first = await h.execution.failJob(failRequest(job.id, 'v1', ErrorClass.VALIDATION, 'VALIDATION_OUTPUT_BLANK', true, true));
    expect(first.outcome).toBe(FailOutcome.REQUEUED);
    await makeDue(job.id);
    expect((await h.execution.claimJob({ jobId: job.id, workerId: 'v2' })).claimed).toMatchObject({
      attempt: 2,
      providerRequestId: undefined,
      providerIdempotencyKey: `${job.id}:1`,
      providerRequestGeneration: 1,
    });
    // image.stylize allows one validation retry: the second refused output ends the job, a third attempt unused.
    const second = await h.execution.failJob(failRequest(job.id, 'v2', ErrorClass.VALIDATION, 'VALIDATION_OUTPUT_SIZE', true, true));
    expect(second.outcome).toBe(FailOutcome.FAILED);
    expect(second.job).toMatchObject({
      status: jobsV1.JobStatus.FAILED,
      errorCode: 'VALIDATION_OUTPUT_SIZE',
      attemptCount: 2,
      maxAttempts: 3,
    });
  });

  it('refuses a request id another job of the same provider already has', async () => {
    const user = newUser();
    const [a, b] = [await newStylize(user), await newStylize(newUser())];
    await h.execution.claimJob({ jobId: a.id, workerId: 'pa' });
    await h.execution.claimJob({ jobId: b.id, workerId: 'pb' });
    await h.execution.recordProviderRequest({ jobId: a.id, workerId: 'pa', providerRequestId: 'pred_shared' });
    expect(
      await refusal(h.execution.recordProviderRequest({ jobId: b.id, workerId: 'pb', providerRequestId: 'pred_shared' })),
    ).toMatchObject({
      reason: 'PROVIDER_REQUEST_CONFLICT',
    });
  });
});

describe('execution - batch calls (one statement per call)', () => {
  it('Heartbeats answers each entry as Heartbeat would: continue with the extended lease, or stop and why', async () => {
    const [mine, lost] = [await newCanary(), await newCanary()];
    await h.execution.claimJobs({ claims: [mine, lost].map((job) => ({ jobId: job.id, workerId: 'beater' })) });
    await h.execution.completeJob({ jobId: lost.id, workerId: 'beater', outputAssetId: '', outputSha256: '' });
    const { results } = await h.execution.heartbeats({
      beats: [
        { jobId: mine.id, workerId: 'beater', progress: 40 },
        { jobId: lost.id, workerId: 'beater', progress: 40 },
        { jobId: mine.id, workerId: 'stranger', progress: 90 },
      ],
    });
    expect(results).toMatchObject([
      { directive: HeartbeatDirective.CONTINUE },
      { directive: HeartbeatDirective.STOP, stopReason: StopReason.JOB_NOT_RUNNING },
      { directive: HeartbeatDirective.STOP, stopReason: StopReason.LEASE_LOST },
    ]);
    expect(results[0]!.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect((await row(mine.id)).progress).toBe(40);
    expect(await refusal(h.execution.heartbeats({ beats: [{ jobId: mine.id, workerId: 'beater', progress: 101 }] }))).toMatchObject({
      field: 'beats[0].progress',
    });
  });

  it('CompleteJobs records the completions of one call together and answers each refusal as CompleteJob would', async () => {
    const [first, second, stolen] = [await newCanary(), await newCanary(), await newCanary()];
    await h.execution.claimJobs({ claims: [first, second, stolen].map((job) => ({ jobId: job.id, workerId: 'finisher' })) });
    await h.db.query(`UPDATE jobs.generation_jobs SET lease_owner = 'thief' WHERE id = $1`, [stolen.id]);
    const { results } = await h.execution.completeJobs({
      completions: [first, second, stolen].map((job) => ({ jobId: job.id, workerId: 'finisher', outputAssetId: '', outputSha256: '' })),
    });
    expect(results.map((r) => r.result?.$case)).toEqual(['completed', 'completed', 'error']);
    expect(results[2]!.result).toMatchObject({ $case: 'error', error: { code: 10, reason: 'LEASE_LOST' } });
    const { rows } = await h.db.query(`SELECT count(DISTINCT completed_at)::int AS moments FROM jobs.generation_jobs WHERE id = ANY($1)`, [
      [first.id, second.id],
    ]);
    expect(rows[0].moments).toBe(1); // one statement, one transaction: one now()
  });
});

describe('execution - CompleteJob', () => {
  it('completes a canary without output and announces job.succeeded', async () => {
    const job = await newCanary();
    await h.execution.claimJob({ jobId: job.id, workerId: 'c' });
    const done = (await h.execution.completeJob({ jobId: job.id, workerId: 'c', outputAssetId: '', outputSha256: '' })).job!;
    expect(done).toMatchObject({ status: jobsV1.JobStatus.SUCCEEDED, progress: 100 });
    expect(done.timings).toBeUndefined(); // the execution API does not read history
    expect((await h.jobs.getJob({ jobId: job.id, userId: job.userId })).job!.timings!.attempts).toHaveLength(1);
    const outbox = await h.db.query(`SELECT event_type FROM jobs.outbox WHERE aggregate_id = $1 ORDER BY id`, [job.id]);
    expect(outbox.rows.map((r) => r.event_type)).toEqual(['job.dispatch', 'job.succeeded']);
    expect(await refusal(h.execution.completeJob({ jobId: job.id, workerId: 'c', outputAssetId: '', outputSha256: '' }))).toMatchObject({
      code: ErrorCode.ABORTED,
      reason: 'JOB_SUCCEEDED',
    });
  });

  it("completes an image job only with a ready ai_output of the job's user", async () => {
    const user = newUser();
    const job = await newStylize(user);
    await h.execution.claimJob({ jobId: job.id, workerId: 'img' });
    expect(await refusal(h.execution.completeJob({ jobId: job.id, workerId: 'img', outputAssetId: '', outputSha256: '' }))).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'output_asset_id',
    });
    const foreign = await putOutputImage(h.mediaAsWorker, newUser(), `foreign-${job.id}`);
    expect(
      await refusal(h.execution.completeJob({ jobId: job.id, workerId: 'img', outputAssetId: foreign.id, outputSha256: foreign.sha256! })),
    ).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'OUTPUT_INVALID',
    });
    const output = await putOutputImage(h.mediaAsWorker, user, job.id);
    expect(
      await refusal(h.execution.completeJob({ jobId: job.id, workerId: 'img', outputAssetId: output.id, outputSha256: 'ab'.repeat(32) })),
    ).toMatchObject({
      reason: 'OUTPUT_INVALID',
    });
    expect(
      await refusal(h.execution.completeJob({ jobId: job.id, workerId: 'thief', outputAssetId: output.id, outputSha256: output.sha256! })),
    ).toMatchObject({
      code: ErrorCode.ABORTED,
      reason: 'LEASE_LOST',
    });
    const done = (await h.execution.completeJob({ jobId: job.id, workerId: 'img', outputAssetId: output.id, outputSha256: output.sha256! }))
      .job!;
    expect(done).toMatchObject({ status: jobsV1.JobStatus.SUCCEEDED, outputAssetId: output.id });
  });

  it("records the output's SHA-256 on the job, and answers a repeated completion with that output as the success it was", async () => {
    const user = newUser();
    const job = await newStylize(user);
    await h.execution.claimJob({ jobId: job.id, workerId: 'twice' });
    const output = await putOutputImage(h.mediaAsWorker, user, job.id);
    const completion = { jobId: job.id, workerId: 'twice', outputAssetId: output.id, outputSha256: output.sha256!.toUpperCase() };
    const done = (await h.execution.completeJob(completion)).job!;
    expect(done).toMatchObject({ status: jobsV1.JobStatus.SUCCEEDED, outputSha256: output.sha256 });
    expect((await row(job.id)).output_sha256).toBe(output.sha256);
    expect((await h.jobs.getJob({ jobId: job.id, userId: user })).job!.outputSha256).toBe(output.sha256);

    // The worker lost the answer and calls again: the same job, succeeded once, one event, one announcement.
    const again = (await h.execution.completeJob(completion)).job!;
    expect(again).toMatchObject({ id: job.id, status: jobsV1.JobStatus.SUCCEEDED, outputSha256: output.sha256, version: done.version });
    const { results } = await h.execution.completeJobs({ completions: [completion] });
    expect(results[0]!.result).toMatchObject({ $case: 'completed' });
    const events = await h.db.query(`SELECT count(*)::int AS n FROM jobs.job_events WHERE job_id = $1 AND to_status = 'succeeded'`, [
      job.id,
    ]);
    expect(events.rows[0].n).toBe(1);
    const outbox = await h.db.query(`SELECT count(*)::int AS n FROM jobs.outbox WHERE aggregate_id = $1 AND event_type = 'job.succeeded'`, [
      job.id,
    ]);
    expect(outbox.rows[0].n).toBe(1);

    // Another worker reporting that very output (its lease was taken over; outputs are keyed by job) did not make it succeed.
    expect(await refusal(h.execution.completeJob({ ...completion, workerId: 'taken-over' }))).toMatchObject({
      code: ErrorCode.ABORTED,
      reason: 'JOB_SUCCEEDED',
    });

    // Another output, or the same asset reported with other bytes, is not that success.
    const other = await putOutputImage(h.mediaAsWorker, user, `other-${job.id}`);
    expect(await refusal(h.execution.completeJob({ ...completion, outputAssetId: other.id, outputSha256: other.sha256! }))).toMatchObject({
      code: ErrorCode.ABORTED,
      reason: 'JOB_SUCCEEDED',
    });
    expect(await refusal(h.execution.completeJob({ ...completion, outputSha256: 'ab'.repeat(32) }))).toMatchObject({
      code: ErrorCode.ABORTED,
      reason: 'JOB_SUCCEEDED',
    });
  });

  it('refuses completion of a job cancelled while it ran (the worker must delete its output)', async () => {
    const job = await newCanary();
    await h.execution.claimJob({ jobId: job.id, workerId: 'late' });
    await h.jobs.cancelJob({ jobId: job.id, userId: job.userId });
    expect(await refusal(h.execution.completeJob({ jobId: job.id, workerId: 'late', outputAssetId: '', outputSha256: '' }))).toMatchObject({
      code: ErrorCode.ABORTED,
      reason: 'JOB_CANCELLED',
    });
  });
});

describe('execution - GetJobStatus (media confirms a job ended before deleting its outputs)', () => {
  it('answers the status as it moves, NOT_FOUND for an unknown job and INVALID_ARGUMENT for a malformed id', async () => {
    const job = await newCanary();
    expect(await h.execution.getJobStatus({ jobId: job.id })).toEqual({ status: jobsV1.JobStatus.QUEUED, userId: job.userId });
    await h.execution.claimJob({ jobId: job.id, workerId: 'w-status' });
    expect((await h.execution.getJobStatus({ jobId: job.id })).status).toBe(jobsV1.JobStatus.RUNNING);
    await h.jobs.cancelJob({ jobId: job.id, userId: job.userId });
    expect((await h.execution.getJobStatus({ jobId: job.id })).status).toBe(jobsV1.JobStatus.CANCELLED);
    expect(await refusal(h.execution.getJobStatus({ jobId: '019a0000-0000-7000-8000-0000000000ab' }))).toMatchObject({
      code: ErrorCode.NOT_FOUND,
      reason: 'JOB_NOT_FOUND',
    });
    expect(await refusal(h.execution.getJobStatus({ jobId: 'nope' }))).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'job_id' });
  });
});

describe('execution - FailJob and ReleaseJob', () => {
  it('requeues a provider error with backoff and a delayed dispatch, then fails when attempts are spent', async () => {
    const job = await newCanary();
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      if (attempt > 1) await makeDue(job.id);
      expect((await h.execution.claimJob({ jobId: job.id, workerId: `f${attempt}` })).claimed!.attempt).toBe(attempt);
      const result = await h.execution.failJob(failRequest(job.id, `f${attempt}`, ErrorClass.PROVIDER, 'PROVIDER_UNAVAILABLE'));
      if (attempt < 3) {
        expect(result.outcome).toBe(FailOutcome.REQUEUED);
        expect(result.job).toMatchObject({ status: jobsV1.JobStatus.QUEUED, progress: 0, errorCode: undefined });
        // The owner sees why the attempt failed, and that it will be tried again.
        expect((await h.jobs.getJob({ jobId: job.id, userId: job.userId })).job).toMatchObject({
          status: jobsV1.JobStatus.QUEUED,
          errorCode: 'PROVIDER_UNAVAILABLE',
          errorMessage: `Attempt ${attempt} of 3 did not succeed (PROVIDER_UNAVAILABLE); it will be tried again shortly.`,
        });
        const delay = result.nextAttemptAt!.getTime() - Date.now();
        expect(delay).toBeGreaterThan(500);
        const dispatch = await h.db.query(
          `SELECT available_at FROM jobs.outbox WHERE aggregate_id = $1 AND event_type = 'job.dispatch' ORDER BY id DESC LIMIT 1`,
          [job.id],
        );
        expect(dispatch.rows[0].available_at.getTime()).toBe(result.nextAttemptAt!.getTime());
      } else {
        expect(result.outcome).toBe(FailOutcome.FAILED);
        expect(result.job).toMatchObject({
          status: jobsV1.JobStatus.FAILED,
          errorCode: 'PROVIDER_UNAVAILABLE',
          errorMessage: 'The generation failed. Please try again.',
        });
      }
    }
    const details = await h.admin.getJobDetails({ jobId: job.id });
    expect(details.job!.internalErrorMessage).toBe('internal detail for PROVIDER_UNAVAILABLE');
    expect(details.events.map((e) => e.errorCode ?? '')).toEqual([
      '',
      '',
      'PROVIDER_UNAVAILABLE',
      '',
      'PROVIDER_UNAVAILABLE',
      '',
      'PROVIDER_UNAVAILABLE',
    ]);
    const user = (await h.jobs.getJob({ jobId: job.id, userId: job.userId })).job!;
    expect(JSON.stringify(user)).not.toContain('internal detail');
    expect(user.timings!.attempts.map((a) => a.outcome)).toEqual([
      jobsV1.JobStatus.QUEUED,
      jobsV1.JobStatus.QUEUED,
      jobsV1.JobStatus.FAILED,
    ]);
  });

  it('never retries content-safety or credential errors, retries an internal error once, and ends a cancellation cancelled', async () => {
    for (const [errorClass, code] of [
      [ErrorClass.CONTENT_SAFETY, 'CONTENT_SAFETY_REJECTED'],
      [ErrorClass.CREDENTIAL, 'CREDENTIAL_INVALID'],
    ] as const) {
      const job = await newCanary();
      await h.execution.claimJob({ jobId: job.id, workerId: 'final' });
      expect((await h.execution.failJob(failRequest(job.id, 'final', errorClass, code))).job!.status).toBe(jobsV1.JobStatus.FAILED);
    }
    const internal = await newCanary();
    await h.execution.claimJob({ jobId: internal.id, workerId: 'i1' });
    expect((await h.execution.failJob(failRequest(internal.id, 'i1', ErrorClass.INTERNAL, 'INTERNAL_BUG'))).outcome).toBe(
      FailOutcome.REQUEUED,
    );
    await makeDue(internal.id);
    await h.execution.claimJob({ jobId: internal.id, workerId: 'i2' });
    expect((await h.execution.failJob(failRequest(internal.id, 'i2', ErrorClass.INTERNAL, 'INTERNAL_BUG'))).outcome).toBe(
      FailOutcome.FAILED,
    );

    const cancelled = await newCanary();
    await h.execution.claimJob({ jobId: cancelled.id, workerId: 'x' });
    expect((await h.execution.failJob(failRequest(cancelled.id, 'x', ErrorClass.CANCELLED, 'CANCELLED'))).job!.status).toBe(
      jobsV1.JobStatus.CANCELLED,
    );
  });

  it('refuses an error code outside its class, and a worker without the lease', async () => {
    const job = await newCanary();
    await h.execution.claimJob({ jobId: job.id, workerId: 'fc' });
    expect(await refusal(h.execution.failJob(failRequest(job.id, 'fc', ErrorClass.PROVIDER, 'TIMEOUT')))).toMatchObject({
      field: 'error_code',
    });
    expect(await refusal(h.execution.failJob(failRequest(job.id, 'fc', ErrorClass.UNSPECIFIED, 'PROVIDER_X')))).toMatchObject({
      field: 'error_class',
    });
    expect(await refusal(h.execution.failJob(failRequest(job.id, 'other', ErrorClass.PROVIDER, 'PROVIDER_X')))).toMatchObject({
      code: ErrorCode.ABORTED,
      reason: 'LEASE_LOST',
    });
  });

  it('hands a job back on release without charging the attempt', async () => {
    const job = await newCanary();
    await h.execution.claimJob({ jobId: job.id, workerId: 'drainer' });
    const released = (await h.execution.releaseJob({ jobId: job.id, workerId: 'drainer', reason: 'SIGTERM' })).job!;
    expect(released).toMatchObject({ status: jobsV1.JobStatus.QUEUED, attemptCount: 0 });
    expect((await h.execution.claimJob({ jobId: job.id, workerId: 'next' })).claimed!.attempt).toBe(1);
  });
});

describe('execution - lease reaper', () => {
  it('re-dispatches an expired lease with attempt+1 — at once the first time, with backoff after — and fails it with LEASE_EXPIRED after the last attempt', async () => {
    const job = await newCanary();
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      if (attempt > 1) await makeDue(job.id);
      expect((await h.execution.claimJob({ jobId: job.id, workerId: `crashy-${attempt}` })).claimed!.attempt).toBe(attempt);
      await expireLease(job.id);
      const reaped = await h.app.reaper.runOnce();
      const current = await row(job.id);
      if (attempt < 3) {
        expect(reaped).toBeGreaterThanOrEqual(1);
        expect(current).toMatchObject({ status: 'queued', attempt_count: attempt, lease_owner: null });
        const dispatches = await h.db.query(
          `SELECT payload, available_at, now() AS now FROM jobs.outbox WHERE aggregate_id = $1 AND event_type = 'job.dispatch' ORDER BY id`,
          [job.id],
        );
        expect(dispatches.rows.at(-1).payload.attempt).toBe(attempt + 1);
        // A first lost lease is not the job's fault: due at once. A second may be: the canary's backoff (1 s ± 20 %).
        const dueInMs = current.next_attempt_at.getTime() - dispatches.rows.at(-1).now.getTime();
        if (attempt === 1) expect(dueInMs).toBeLessThanOrEqual(0);
        else expect(dueInMs).toBeGreaterThanOrEqual(700);
        expect(dispatches.rows.at(-1).available_at).toEqual(current.next_attempt_at);
        // The crashed worker comes back: its lease is gone.
        expect(await h.execution.heartbeat({ jobId: job.id, workerId: `crashy-${attempt}`, progress: 10 })).toMatchObject({
          directive: HeartbeatDirective.STOP,
          stopReason: StopReason.LEASE_LOST,
        });
      } else {
        expect(current).toMatchObject({ status: 'failed', error_code: 'LEASE_EXPIRED', attempt_count: 3 });
      }
    }
    const events = await h.db.query(
      `SELECT actor, to_status, error_code FROM jobs.job_events WHERE job_id = $1 AND actor = 'reaper' ORDER BY id`,
      [job.id],
    );
    expect(events.rows).toEqual([
      { actor: 'reaper', to_status: 'queued', error_code: 'LEASE_EXPIRED' },
      { actor: 'reaper', to_status: 'queued', error_code: 'LEASE_EXPIRED' },
      { actor: 'reaper', to_status: 'failed', error_code: 'LEASE_EXPIRED' },
    ]);
  });

  it('leaves a job alone whose heartbeat got in before the reaper', async () => {
    const job = await newCanary();
    await h.execution.claimJob({ jobId: job.id, workerId: 'alive' });
    await expireLease(job.id);
    expect((await h.execution.heartbeat({ jobId: job.id, workerId: 'alive', progress: 5 })).directive).toBe(HeartbeatDirective.CONTINUE);
    await h.app.reaper.runOnce();
    expect((await row(job.id)).status).toBe('running');
  });

  it('handles each expired lease exactly once with two reapers running at the same time', async () => {
    const jobs = await Promise.all(Array.from({ length: 20 }, () => newCanary()));
    for (const job of jobs) await h.execution.claimJob({ jobId: job.id, workerId: `mass-${job.id}` });
    await h.db.query(
      `UPDATE jobs.generation_jobs SET started_at = now() - interval '10 minutes', lease_expires_at = now() - interval '1 second' WHERE id = ANY($1)`,
      [jobs.map((j) => j.id)],
    );
    const logger = createLogger({ service: 'reaper-test', level: 'silent' });
    const pools = [
      createSqlPool({ databaseUrl: h.database.url, applicationName: 'r1' }),
      createSqlPool({ databaseUrl: h.database.url, applicationName: 'r2' }),
    ];
    const reapers = pools.map(
      (pool) =>
        new LeaseReaper({
          pool,
          registry: createRegistry(),
          subjects: h.app.context.subjects,
          logger,
          announceTo: h.app.context,
          intervalMs: 60_000,
          batchSize: 3,
        }),
    );
    const [a, b] = await Promise.all(reapers.map((r) => r.runOnce()));
    await Promise.all(pools.map((p) => p.end()));
    expect(a! + b!).toBe(20);
    const reaperEvents = await h.db.query(
      `SELECT job_id, count(*)::int AS n FROM jobs.job_events WHERE actor = 'reaper' AND to_status = 'queued' AND job_id = ANY($1) GROUP BY job_id`,
      [jobs.map((j) => j.id)],
    );
    expect(reaperEvents.rows).toHaveLength(20);
    expect(reaperEvents.rows.every((r) => r.n === 1)).toBe(true);
    const dispatches = await h.db.query(
      `SELECT count(*)::int AS n FROM jobs.outbox WHERE event_type = 'job.dispatch' AND aggregate_id = ANY($1)`,
      [jobs.map((j) => j.id)],
    );
    expect(dispatches.rows[0].n).toBe(40);
  });
});

describe('execution - the lease reaper wakes as a lease expires', () => {
  it('reaps a lease within moments of its expiry, though its interval is a minute', async () => {
    const job = await newCanary();
    await h.execution.claimJob({ jobId: job.id, workerId: 'frozen' });
    await h.db.query(`UPDATE jobs.generation_jobs SET lease_expires_at = now() + interval '1500 milliseconds' WHERE id = $1`, [job.id]);
    const reaper = new LeaseReaper({
      pool: h.app.context.pool,
      registry: createRegistry(),
      subjects: h.app.context.subjects,
      logger: createLogger({ service: 'reaper-test', level: 'silent' }),
      announceTo: h.app.context,
      intervalMs: 60_000,
    });
    reaper.start();
    try {
      const expiresAt = (await row(job.id)).lease_expires_at as Date;
      const deadline = Date.now() + 10_000;
      while ((await row(job.id)).status === 'running' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      const reaped = await h.db.query(
        `SELECT occurred_at FROM jobs.job_events WHERE job_id = $1 AND actor = 'reaper' AND error_code = 'LEASE_EXPIRED'`,
        [job.id],
      );
      expect(reaped.rows).toHaveLength(1);
      const lateMs = (reaped.rows[0].occurred_at as Date).getTime() - expiresAt.getTime();
      expect(lateMs).toBeGreaterThan(0);
      expect(lateMs).toBeLessThan(1_000);
      expect(await row(job.id)).toMatchObject({ status: 'queued', lease_owner: null });
    } finally {
      await reaper.stop();
    }
  });
});

describe('execution - the database refuses illegal states and transitions', () => {
  async function attempt(sql: string, values: unknown[]) {
    const client = new pg.Client({ connectionString: h.database.url });
    await client.connect();
    try {
      await client.query(sql, values);
      return undefined;
    } catch (error) {
      return error as { code: string; constraint?: string; message: string };
    } finally {
      await client.end();
    }
  }

  it('refuses moves out of a terminal state', async () => {
    const job = await newCanary();
    await h.jobs.cancelJob({ jobId: job.id, userId: job.userId });
    const error = await attempt(`UPDATE jobs.generation_jobs SET status = 'queued', completed_at = NULL WHERE id = $1`, [job.id]);
    expect(error).toMatchObject({ code: '23514', constraint: 'generation_jobs_transition' });
    expect(error!.message).toContain('can no longer change');
  });

  it('refuses a transition the state machine does not have, even with a consistent row', async () => {
    const job = await newCanary();
    const error = await attempt(`UPDATE jobs.generation_jobs SET status = 'failed', completed_at = now(), error_code = 'X' WHERE id = $1`, [
      job.id,
    ]);
    expect(error).toMatchObject({ code: '23514', constraint: 'generation_jobs_transition' });
  });

  it('refuses rows whose columns contradict their status', async () => {
    const job = await newCanary();
    expect(await attempt(`UPDATE jobs.generation_jobs SET status = 'running', started_at = now() WHERE id = $1`, [job.id])).toMatchObject({
      constraint: 'generation_jobs_state', // running without a lease
    });
    expect(await attempt(`UPDATE jobs.generation_jobs SET lease_owner = 'w' WHERE id = $1`, [job.id])).toMatchObject({ code: '23514' });
    expect(await attempt(`UPDATE jobs.generation_jobs SET progress = 50 WHERE id = $1`, [job.id])).toMatchObject({
      constraint: 'generation_jobs_state',
    });
    const image = await newStylize(newUser());
    await h.execution.claimJob({ jobId: image.id, workerId: 'sql' });
    expect(
      await attempt(
        `UPDATE jobs.generation_jobs SET status = 'succeeded', progress = 100, completed_at = now(), lease_owner = NULL, lease_expires_at = NULL WHERE id = $1`,
        [image.id],
      ),
    ).toMatchObject({ constraint: 'generation_jobs_state' }); // an image job cannot succeed without output
    expect(await attempt(`UPDATE jobs.generation_jobs SET attempt_count = 9 WHERE id = $1`, [image.id])).toMatchObject({
      constraint: 'generation_jobs_attempts',
    });
    expect(await attempt(`UPDATE jobs.generation_jobs SET request_hash = '\\x00' WHERE id = $1`, [image.id])).toMatchObject({
      constraint: 'generation_jobs_request_hash_length',
    });
  });

  it('holds requested image sides to the limits of @atelier/images: the CHECKs of the migrations name the same numbers', async () => {
    expect(await rangeChecksOf(h.db, 'jobs.generation_jobs')).toMatchObject({
      generation_jobs_width_range: [MIN_IMAGE_SIDE_PX, MAX_IMAGE_SIDE_PX],
      generation_jobs_height_range: [MIN_IMAGE_SIDE_PX, MAX_IMAGE_SIDE_PX],
    });
  });
});

describe('operators - list, inspect and retry jobs', () => {
  it("lists all users' jobs with filters and internal messages, and retries a failed one as a new linked job", async () => {
    const user = newUser();
    const image = await newStylize(user);
    await h.execution.claimJob({ jobId: image.id, workerId: 'ops-w' });
    await h.execution.failJob(failRequest(image.id, 'ops-w', ErrorClass.CONTENT_SAFETY, 'CONTENT_SAFETY_REJECTED', false));

    const listed = await h.admin.listAllJobs({
      userId: user,
      status: jobsV1.JobStatus.FAILED,
      jobType: 'image.stylize',
      queue: 0,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.jobs.map((j) => j.job!.id)).toEqual([image.id]);
    expect(listed.jobs[0]).toMatchObject({ internalErrorMessage: 'internal detail for CONTENT_SAFETY_REJECTED' });
    const byType = await h.admin.listAllJobs({
      jobType: 'system.canary',
      status: 0,
      queue: jobsV1.JobQueue.INTERACTIVE,
      pageSize: 100,
      pageToken: '',
    });
    expect(byType.jobs.every((j) => j.job!.jobType === 'system.canary')).toBe(true);
    expect(await refusal(h.admin.listAllJobs({ jobType: 'nope.type', status: 0, queue: 0, pageSize: 0, pageToken: '' }))).toMatchObject({
      field: 'job_type',
    });

    const retried = (await h.admin.retryJob({ actor: TEST_OPERATOR_ACTOR, jobId: image.id, operatorId: 'ops-alice' })).job!;
    expect(retried.job).toMatchObject({
      status: jobsV1.JobStatus.QUEUED,
      retryOfJobId: image.id,
      userId: user,
      inputAssetId: image.inputAssetId,
      snapshot: image.snapshot,
    });
    // The snapshot holds what the original asked the vendor (the seeded model's defaults, the style's preset): the retry asks the same.
    expect(image.snapshot).toMatchObject({ effectiveParameters: { strength: expect.any(Number) }, effectivePrompt: expect.any(String) });
    expect(retried.job!.id).not.toBe(image.id);
    const details = await h.admin.getJobDetails({ jobId: retried.job!.id });
    expect(details.events.map((e) => e.actor)).toEqual(['operator:ops-alice']);
    expect((await h.jobs.getJob({ jobId: image.id, userId: user })).job!.status).toBe(jobsV1.JobStatus.FAILED);

    const queued = await newCanary();
    expect(await refusal(h.admin.retryJob({ actor: TEST_OPERATOR_ACTOR, jobId: queued.id, operatorId: 'ops-alice' }))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'JOB_NOT_RETRYABLE',
    });

    // Once retention removed what the user wrote, a copy would ask the vendor for something else.
    await h.db.query(
      `UPDATE jobs.generation_jobs SET prompt = '', negative_prompt = '', effective_prompt = '', redaction_version = 1, redacted_at = now() WHERE id = $1`,
      [image.id],
    );
    expect(await refusal(h.admin.retryJob({ jobId: image.id, operatorId: 'ops-alice', actor: TEST_OPERATOR_ACTOR }))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'JOB_REDACTED',
    });
  });
});
