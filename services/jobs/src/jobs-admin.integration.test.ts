import { TEST_OPERATOR_ACTOR } from '@atelier/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsAdminV1, jobsExecutionV1, jobsV1 } from '@atelier/contracts';
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

// The operator API's job detail, admin cancel and replay audit against a real database and NATS.
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
const newUser = () => `admin-user-${process.pid}-${++seq}`;
const newCanary = async (user = newUser()) => (await h.jobs.createJob(canaryRequest(user, `c-${++seq}`))).job!;
const newStylize = async (user = newUser()) =>
  (
    await h.jobs.createJob(
      stylizeRequest(choice, { userId: user, idempotencyKey: `s-${++seq}`, inputAssetId: await uploadInputImage(h.media, user) }),
    )
  ).job!;

const failure = (jobId: string, workerId: string, errorCode: string) => ({
  jobId,
  workerId,
  errorClass: jobsExecutionV1.ErrorClass.PROVIDER,
  errorCode,
  publicMessage: '',
  internalMessage: `vendor said no (${errorCode})`,
  retryable: true,
  abandonProviderRequest: false,
});

describe('jobs admin - GetJobDetails', () => {
  it("answers every transition with its actor and detail, and each attempt's queue wait, run time and error", async () => {
    const job = await newStylize();
    await h.execution.claimJob({ jobId: job.id, workerId: 'w-a' });
    await h.execution.recordProviderRequest({ jobId: job.id, workerId: 'w-a', providerRequestId: `pred-${job.id}` });
    await h.execution.failJob(failure(job.id, 'w-a', 'PROVIDER_UNAVAILABLE'));
    await h.db.query(`UPDATE jobs.generation_jobs SET next_attempt_at = now() WHERE id = $1`, [job.id]);
    await h.execution.claimJob({ jobId: job.id, workerId: 'w-b' });

    const details = await h.admin.getJobDetails({ jobId: job.id });
    expect(details.job).toMatchObject({ providerRequestId: `pred-${job.id}`, abandonedProviderRequests: 0, leaseOwner: 'w-b' });
    expect(details.events.map((e) => [e.fromStatus, e.toStatus, e.attempt, e.actor, e.errorCode, e.detail])).toEqual([
      [jobsV1.JobStatus.UNSPECIFIED, jobsV1.JobStatus.QUEUED, 0, `user:${job.userId}`, undefined, undefined],
      [jobsV1.JobStatus.QUEUED, jobsV1.JobStatus.RUNNING, 1, 'worker:w-a', undefined, undefined],
      [jobsV1.JobStatus.RUNNING, jobsV1.JobStatus.QUEUED, 1, 'worker:w-a', 'PROVIDER_UNAVAILABLE', 'vendor said no (PROVIDER_UNAVAILABLE)'],
      [jobsV1.JobStatus.QUEUED, jobsV1.JobStatus.RUNNING, 2, 'worker:w-b', undefined, undefined],
    ]);
    const [first, second] = details.attempts;
    const event = (i: number) => details.events[i]!.occurredAt!;
    expect(first).toMatchObject({
      attempt: 1,
      queuedAt: event(0),
      startedAt: event(1),
      endedAt: event(2),
      queuedWaitMs: event(1).getTime() - event(0).getTime(),
      runMs: event(2).getTime() - event(1).getTime(),
      outcome: jobsV1.JobStatus.QUEUED,
      claimedBy: 'worker:w-a',
      endedBy: 'worker:w-a',
      errorCode: 'PROVIDER_UNAVAILABLE',
      errorClass: jobsExecutionV1.ErrorClass.PROVIDER,
      errorDetail: 'vendor said no (PROVIDER_UNAVAILABLE)',
    });
    expect(second).toMatchObject({
      attempt: 2,
      queuedAt: event(2),
      startedAt: event(3),
      outcome: jobsV1.JobStatus.RUNNING,
      claimedBy: 'worker:w-b',
    });
    expect(second!.endedAt).toBeUndefined();
    expect(details.attempts).toHaveLength(2);
  });

  it('refuses a malformed id by field and answers NOT_FOUND for an unknown one', async () => {
    expect(await refusal(h.admin.getJobDetails({ jobId: 'nope' }))).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'job_id' });
    expect(await refusal(h.admin.getJobDetails({ jobId: '019a0000-0000-7000-8000-0000000000ab' }))).toMatchObject({
      code: ErrorCode.NOT_FOUND,
      reason: 'JOB_NOT_FOUND',
    });
  });
});

describe('jobs admin - CancelJob', () => {
  it("cancels any user's running job as its owner's cancel would: the event names the operator, the prediction is cancelled at the vendor", async () => {
    const job = await newStylize();
    await h.execution.claimJob({ jobId: job.id, workerId: 'w-c' });
    await h.execution.recordProviderRequest({ jobId: job.id, workerId: 'w-c', providerRequestId: `pred-${job.id}` });
    const { job: cancelled } = await h.admin.cancelJob({ actor: TEST_OPERATOR_ACTOR, jobId: job.id, operatorId: 'ops-bob' });
    expect(cancelled!.job).toMatchObject({ status: jobsV1.JobStatus.CANCELLED, userId: job.userId });
    const details = await h.admin.getJobDetails({ jobId: job.id });
    expect(details.events.at(-1)).toMatchObject({
      fromStatus: jobsV1.JobStatus.RUNNING,
      toStatus: jobsV1.JobStatus.CANCELLED,
      actor: 'operator:ops-bob',
    });
    expect(details.attempts.at(-1)).toMatchObject({ outcome: jobsV1.JobStatus.CANCELLED, endedBy: 'operator:ops-bob' });
    const outbox = await h.db.query(
      `SELECT event_type, subject, payload, dedupe_key FROM jobs.outbox WHERE aggregate_id = $1 ORDER BY id`,
      [job.id],
    );
    expect(outbox.rows.map((r) => r.event_type).sort()).toEqual([
      'creation_job_cancelled',
      'creation_job_submitted',
      'job.cancelled',
      'job.dispatch',
      'job.provider_cancel',
    ]);
    expect(outbox.rows.find((r) => r.event_type === 'job.provider_cancel')).toMatchObject({
      subject: h.topology.controlSubject('provider-cancel'),
      payload: { jobId: job.id, providerCode: choice.stylizer.providerCode, providerRequestId: `pred-${job.id}` },
      dedupe_key: `provider-cancel:${job.id}:pred-${job.id}`,
    });
    const beat = await h.execution.heartbeat({ jobId: job.id, workerId: 'w-c', progress: 10 });
    expect(beat).toMatchObject({ directive: jobsExecutionV1.HeartbeatDirective.STOP, stopReason: jobsExecutionV1.StopReason.CANCELLED });
  });

  it('refuses a job that ended with JOB_ALREADY_FINISHED naming its status, an unknown job with NOT_FOUND, bad fields by name', async () => {
    const job = await newCanary();
    await h.admin.cancelJob({ actor: TEST_OPERATOR_ACTOR, jobId: job.id, operatorId: 'ops-bob' });
    expect(await refusal(h.admin.cancelJob({ actor: TEST_OPERATOR_ACTOR, jobId: job.id, operatorId: 'ops-bob' }))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'JOB_ALREADY_FINISHED',
      message: expect.stringContaining('cancelled'),
    });
    expect(
      await refusal(h.admin.cancelJob({ actor: TEST_OPERATOR_ACTOR, jobId: '019a0000-0000-7000-8000-0000000000ab', operatorId: 'ops' })),
    ).toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
    expect(await refusal(h.admin.cancelJob({ actor: TEST_OPERATOR_ACTOR, jobId: 'nope', operatorId: 'ops' }))).toMatchObject({
      field: 'job_id',
    });
    expect(await refusal(h.admin.cancelJob({ actor: TEST_OPERATOR_ACTOR, jobId: job.id, operatorId: '' }))).toMatchObject({
      field: 'operator_id',
    });
  });
});

describe('jobs admin - the replay audit', () => {
  it('writes one row per replay call — replayed, not dead, not found — and lists them newest first in pages', async () => {
    const job = await newCanary();
    const dead = await h.db.query(
      `INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, status, attempt_count, last_error)
       VALUES ($1, 'job.dispatch', $2, $3, '{"jobId": "x"}', 'dead', 5, 'broker refused') RETURNING id`,
      [job.id, h.topology.dispatchSubject('background'), `audit-${job.id}`],
    );
    const id = String(dead.rows[0].id);
    const operator = `ops-${process.pid}-${++seq}`;
    expect((await h.admin.replayOutboxEvent({ actor: TEST_OPERATOR_ACTOR, eventId: id, operatorId: operator })).event).toMatchObject({
      id,
      attemptCount: 0,
    });
    expect(await refusal(h.admin.replayOutboxEvent({ actor: TEST_OPERATOR_ACTOR, eventId: id, operatorId: operator }))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'OUTBOX_EVENT_NOT_DEAD',
    });
    expect(
      await refusal(h.admin.replayOutboxEvent({ actor: TEST_OPERATOR_ACTOR, eventId: '9223372036854775807', operatorId: operator })),
    ).toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
    // Refused before any SQL: nothing to audit.
    expect(await refusal(h.admin.replayOutboxEvent({ actor: TEST_OPERATOR_ACTOR, eventId: id, operatorId: '' }))).toMatchObject({
      field: 'operator_id',
    });

    const first = await h.admin.listOutboxReplays({ pageSize: 2, pageToken: '' });
    const second = await h.admin.listOutboxReplays({ pageSize: 2, pageToken: first.nextPageToken });
    const mine = [...first.replays, ...second.replays].filter((r) => r.operatorId === operator);
    const { Result } = { Result: jobsAdminV1.OutboxReplayResult };
    expect(mine.map((r) => [r.outboxId, r.result])).toEqual([
      ['9223372036854775807', Result.NOT_FOUND],
      [id, Result.NOT_DEAD],
      [id, Result.REPLAYED],
    ]);
    expect(first.replays).toHaveLength(2);
    expect(first.replays[0]!.id).toBeGreaterThan(first.replays[1]!.id);
    expect(mine[0]!.replayedAt).toBeInstanceOf(Date);
    expect(await refusal(h.admin.listOutboxReplays({ pageSize: 1, pageToken: 'x' }))).toMatchObject({ field: 'page_token' });
  });
});
