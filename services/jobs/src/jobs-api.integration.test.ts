import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsAdminV1, jobsEventsV1, jobsExecutionV1, jobsV1, mediaV1 } from '@atelier/contracts';
import { ErrorCode } from '@atelier/errors';
import { jetstreamManager } from '@atelier/nats';
import {
  canaryRequest,
  catalogChoice,
  refusal,
  startJobsHarness,
  uploadInputImage,
  type JobsHarness,
} from './test-support/jobs-harness.js';
import { testClient, testNatsUrl, TEST_OPERATOR_ACTOR } from '@atelier/testing';

let h: JobsHarness;
let choice: Awaited<ReturnType<typeof catalogChoice>>;

beforeAll(async () => {
  h = await startJobsHarness();
  choice = await catalogChoice(h.catalog);
}, 90_000);

afterAll(async () => {
  await h?.stop();
});

let userSeq = 0;
const newUser = () => `user-${process.pid}-${++userSeq}`;

async function stylizeRequest(userId: string, key: string, overrides: Partial<jobsV1.CreateJobRequest> = {}) {
  return jobsV1.CreateJobRequest.fromPartial({
    userId,
    idempotencyKey: key,
    jobType: 'image.stylize',
    modelId: choice.stylizer.id,
    styleId: choice.style.id,
    inputAssetId: overrides.inputAssetId ?? (await uploadInputImage(h.media, userId)),
    prompt: 'my cat as a renaissance painting',
    parameters: { strength: 0.7 },
    ...overrides,
  });
}

/** The overview's count of users each quota allowance refused in its current period. */
const quotaHits = async () => (await h.admin.getOverview({ windowMinutes: 60 })).quotaHits!;

async function countRows(sql: string, values: unknown[] = []): Promise<number> {
  return Number((await h.db.query(sql, values)).rows[0].n);
}

describe('jobs - CreateJob', () => {
  it('creates a queued job with catalog snapshots, its creation event and its dispatch', async () => {
    const user = newUser();
    const { job, created } = await h.jobs.createJob(await stylizeRequest(user, 'k1'));
    expect(created).toBe(true);
    expect(job).toMatchObject({
      userId: user,
      jobType: 'image.stylize',
      status: jobsV1.JobStatus.QUEUED,
      queue: jobsV1.JobQueue.INTERACTIVE,
      progress: 0,
      attemptCount: 0,
      maxAttempts: 3,
      snapshot: {
        providerCode: choice.stylizer.providerCode,
        providerModel: choice.stylizer.providerModel,
        modelVersion: choice.stylizer.modelVersion,
        styleCode: choice.style.code,
      },
      parameters: { strength: 0.7 },
      idempotencyKey: 'k1',
    });
    expect(job!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(await countRows(`SELECT count(*) AS n FROM jobs.job_events WHERE job_id = $1 AND to_status = 'queued'`, [job!.id])).toBe(1);
    const outbox = await h.db.query(`SELECT event_type, subject, payload FROM jobs.outbox WHERE aggregate_id = $1 ORDER BY id`, [job!.id]);
    expect(outbox.rows).toEqual([
      { event_type: 'job.dispatch', subject: h.topology.dispatchSubject('interactive'), payload: expect.any(Object) },
      {
        event_type: 'creation_job_submitted',
        subject: h.topology.productEventSubject('creation_job_submitted'),
        payload: expect.objectContaining({ eventId: `creation_job_submitted:${job!.id}` }),
      },
    ]);
    const dispatch = jobsEventsV1.JobDispatch.fromJSON(outbox.rows[0].payload);
    expect(dispatch).toMatchObject({ jobId: job!.id, jobType: 'image.stylize', queue: jobsV1.JobQueue.INTERACTIVE, attempt: 1 });
  });

  it('replays the same job for the same key and command, even with cosmetic differences', async () => {
    const user = newUser();
    const request = await stylizeRequest(user, 'replay-key');
    const first = await h.jobs.createJob(request);
    const again = await h.jobs.createJob({ ...request, prompt: `  ${request.prompt}  `, idempotencyKey: ' replay-key ' });
    expect(again.created).toBe(false);
    expect(again.job!.id).toBe(first.job!.id);
    expect(await countRows('SELECT count(*) AS n FROM jobs.generation_jobs WHERE user_id = $1', [user])).toBe(1);
  });

  it('answers a replay from its key alone: an input deleted since does not matter, while a new key with it is refused', async () => {
    const user = newUser();
    const request = await stylizeRequest(user, 'replay-after-delete');
    const first = await h.jobs.createJob(request);
    await h.mediaAsWorker.deleteAsset({ assetId: request.inputAssetId! });
    const again = await h.jobs.createJob(request);
    expect(again).toMatchObject({ created: false, job: { id: first.job!.id } });
    const fresh = await refusal(h.jobs.createJob({ ...request, idempotencyKey: 'another-key' }));
    expect(fresh).toMatchObject({ code: ErrorCode.NOT_FOUND });
    expect(await countRows('SELECT count(*) AS n FROM jobs.generation_jobs WHERE user_id = $1', [user])).toBe(1);
  });

  it('refuses the same key with another command as IDEMPOTENCY_PAYLOAD_MISMATCH, writing nothing', async () => {
    const user = newUser();
    const request = await stylizeRequest(user, 'mismatch-key');
    await h.jobs.createJob(request);
    const error = await refusal(h.jobs.createJob({ ...request, prompt: 'a different prompt' }));
    expect(error).toMatchObject({ code: ErrorCode.ALREADY_EXISTS, reason: 'IDEMPOTENCY_PAYLOAD_MISMATCH' });
    expect(await countRows('SELECT count(*) AS n FROM jobs.generation_jobs WHERE user_id = $1', [user])).toBe(1);
  });

  it('turns 50 concurrent identical requests into exactly one job', async () => {
    const user = newUser();
    const request = await stylizeRequest(user, 'burst-key');
    const results = await Promise.all(Array.from({ length: 50 }, () => h.jobs.createJob(request)));
    expect(new Set(results.map((r) => r.job!.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await countRows('SELECT count(*) AS n FROM jobs.generation_jobs WHERE user_id = $1', [user])).toBe(1);
    // One dispatch and one product event: the replays wrote nothing.
    const outbox = await h.db.query(`SELECT event_type FROM jobs.outbox WHERE aggregate_id = $1 ORDER BY id`, [results[0]!.job!.id]);
    expect(outbox.rows.map((row) => row.event_type)).toEqual(['job.dispatch', 'creation_job_submitted']);
  });

  it('admits at most the in-flight limit out of 20 concurrent creates with different keys', async () => {
    const user = newUser();
    const input = await uploadInputImage(h.media, user);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, async (_, i) => h.jobs.createJob(await stylizeRequest(user, `parallel-${i}`, { inputAssetId: input }))),
    );
    const admitted = outcomes.filter((o) => o.status === 'fulfilled');
    expect(admitted).toHaveLength(2);
    for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({
        code: ErrorCode.RESOURCE_EXHAUSTED,
        reason: 'GENERATION_QUOTA_EXCEEDED',
        retryAfterSeconds: 10,
      });
    }
    expect(await countRows(`SELECT count(*) AS n FROM jobs.generation_jobs WHERE user_id = $1`, [user])).toBe(2);
  });

  it('gives quota back when a job is cancelled', async () => {
    const user = newUser();
    const input = await uploadInputImage(h.media, user);
    const first = await h.jobs.createJob(await stylizeRequest(user, 'q1', { inputAssetId: input }));
    await h.jobs.createJob(await stylizeRequest(user, 'q2', { inputAssetId: input }));
    expect(await refusal(h.jobs.createJob(await stylizeRequest(user, 'q3', { inputAssetId: input })))).toMatchObject({
      code: ErrorCode.RESOURCE_EXHAUSTED,
    });
    await h.jobs.cancelJob({ jobId: first.job!.id, userId: user });
    expect((await h.jobs.createJob(await stylizeRequest(user, 'q3', { inputAssetId: input }))).created).toBe(true);
  });

  it('does not count operator canaries against quotas', async () => {
    const user = newUser();
    for (let i = 0; i < 5; i += 1) expect((await h.jobs.createJob(canaryRequest(user, `canary-${i}`))).created).toBe(true);
  });

  it('refuses a create in an account whose deletion was requested as ACCOUNT_DELETED, told by the create statement itself', async () => {
    const user = newUser();
    const input = await uploadInputImage(h.media, user);
    // The request's row alone (what RequestAccountDeletion writes under the user's lock), without its event.
    await h.db.query(`INSERT INTO jobs.account_deletions (user_id, deletion_id) VALUES ($1, gen_random_uuid())`, [user]);
    const hitsBefore = await quotaHits();
    expect(await refusal(h.jobs.createJob(await stylizeRequest(user, 'after-deletion', { inputAssetId: input })))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'ACCOUNT_DELETED',
    });
    expect(await countRows('SELECT count(*) AS n FROM jobs.generation_jobs WHERE user_id = $1', [user])).toBe(0);
    expect(await quotaHits()).toEqual(hitsBefore);
  });

  it('refuses invalid requests with the field or rule named, and writes nothing', async () => {
    const user = newUser();
    const other = newUser();
    const ownInput = await uploadInputImage(h.media, user);
    const othersInput = await uploadInputImage(h.media, other);
    const postImage = await uploadInputImage(h.media, user, mediaV1.AssetPurpose.POST_IMAGE);
    const notReady = (
      await h.media.createUpload({ ownerUserId: user, purpose: mediaV1.AssetPurpose.AI_INPUT, contentType: 'image/png', sizeBytes: 100 })
    ).asset!.id;
    const base = await stylizeRequest(user, 'invalid', { inputAssetId: ownInput });
    const cases: [Partial<jobsV1.CreateJobRequest>, object][] = [
      [{ jobType: 'image.explode' }, { code: ErrorCode.INVALID_ARGUMENT, field: 'job_type' }],
      [{ idempotencyKey: '   ' }, { code: ErrorCode.INVALID_ARGUMENT, field: 'idempotency_key' }],
      [{ idempotencyKey: 'k'.repeat(129) }, { field: 'idempotency_key' }],
      [{ userId: '' }, { field: 'user_id' }],
      [{ styleId: undefined }, { field: 'style_id' }],
      [{ modelId: 'not-a-uuid' }, { field: 'model_id' }],
      [{ prompt: 'x'.repeat(10_001) }, { field: 'prompt' }],
      [{ negativePrompt: 'x'.repeat(3_001) }, { field: 'negative_prompt' }],
      // NUL reaches no text or jsonb column (Postgres refuses it: 22021 / 22P05).
      [{ prompt: 'a cat\u0000' }, { code: ErrorCode.INVALID_ARGUMENT, field: 'prompt' }],
      [{ negativePrompt: '\u0000' }, { code: ErrorCode.INVALID_ARGUMENT, field: 'negative_prompt' }],
      [{ idempotencyKey: 'key\u0000' }, { code: ErrorCode.INVALID_ARGUMENT, field: 'idempotency_key' }],
      [{ parameters: { strength: 'x\u0000' } }, { code: ErrorCode.INVALID_ARGUMENT, field: 'parameters' }],
      [{ parameters: { 'a\u0000': 1 } }, { code: ErrorCode.INVALID_ARGUMENT, field: 'parameters' }],
      [{ width: 10 }, { field: 'width' }],
      [{ height: 9000 }, { field: 'height' }],
      [{ parameters: { strength: 5 } }, { field: 'parameters.strength' }],
      [{ parameters: { colour: 'red' } }, { field: 'parameters.colour' }],
      [{ modelId: choice.upscaler.id }, { code: ErrorCode.FAILED_PRECONDITION, reason: 'MODEL_JOB_TYPE_MISMATCH' }],
      [{ modelId: '019a0000-0000-7000-8000-0000000000ff' }, { code: ErrorCode.FAILED_PRECONDITION, reason: 'MODEL_NOT_FOUND' }],
      [{ styleId: '019a0000-0000-7000-8000-0000000000ff' }, { code: ErrorCode.FAILED_PRECONDITION, reason: 'STYLE_NOT_FOUND' }],
      [{ inputAssetId: othersInput }, { code: ErrorCode.NOT_FOUND, reason: 'INPUT_ASSET_NOT_FOUND' }],
      [{ inputAssetId: '019a0000-0000-7000-8000-0000000000ff' }, { code: ErrorCode.NOT_FOUND, reason: 'INPUT_ASSET_NOT_FOUND' }],
      [{ inputAssetId: notReady }, { code: ErrorCode.FAILED_PRECONDITION, reason: 'MEDIA_NOT_READY' }],
      [{ inputAssetId: postImage }, { code: ErrorCode.FAILED_PRECONDITION, reason: 'INPUT_ASSET_WRONG_PURPOSE' }],
    ];
    for (const [overrides, expected] of cases) {
      expect(await refusal(h.jobs.createJob({ ...base, ...overrides })), JSON.stringify(overrides).slice(0, 80)).toMatchObject(expected);
    }
    expect(await countRows('SELECT count(*) AS n FROM jobs.generation_jobs WHERE user_id = $1', [user])).toBe(0);
  });

  // CreateJob reads catalog through a cache (30 s TTL here): a disable reaches it by catalog's
  // change notice on NATS, within moments. Each try has its own key: a job created before the
  // notice landed would be replayed, not refused, under the same key.
  async function refusedWithin(base: jobsV1.CreateJobRequest, reason: string, timeoutMs: number): Promise<number> {
    const startedAt = Date.now();
    for (let attempt = 0; ; attempt += 1) {
      const outcome = await h.jobs.createJob({ ...base, idempotencyKey: `${base.idempotencyKey}-${attempt}` }).then(
        () => undefined,
        (error: { reason?: string }) => error,
      );
      if (outcome?.reason === reason) return Date.now() - startedAt;
      // Tries served from the cached copy before the notice create jobs, and may fill the quota.
      if (outcome && outcome.reason !== 'GENERATION_QUOTA_EXCEEDED') throw outcome;
      if (Date.now() - startedAt > timeoutMs) throw new Error(`not refused ${reason} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('refuses a model or style within moments of its disable, well before the cache TTL, and takes it back as soon', async () => {
    const user = newUser();
    const base = await stylizeRequest(user, 'disabled');
    // Cached now: this create read both.
    expect((await h.jobs.createJob(base)).created).toBe(true);

    await h.catalog.setStyleEnabled({ actor: TEST_OPERATOR_ACTOR, styleId: choice.style.id, enabled: false });
    try {
      expect(await refusedWithin(base, 'STYLE_DISABLED', 5_000)).toBeLessThan(5_000);
    } finally {
      await h.catalog.setStyleEnabled({ actor: TEST_OPERATOR_ACTOR, styleId: choice.style.id, enabled: true });
    }
    await h.catalog.setModelEnabled({ actor: TEST_OPERATOR_ACTOR, modelId: choice.stylizer.id, enabled: false });
    try {
      expect(await refusedWithin(base, 'MODEL_DISABLED', 5_000)).toBeLessThan(5_000);
    } finally {
      await h.catalog.setModelEnabled({ actor: TEST_OPERATOR_ACTOR, modelId: choice.stylizer.id, enabled: true });
    }
    // Enabled again: taken as soon. Another user, so that tries served before a notice (jobs
    // created) cannot have used up this one's in-flight quota.
    const other = newUser();
    const again = await stylizeRequest(other, 'enabled-again');
    await expect
      .poll(
        async () =>
          (await h.jobs.createJob({ ...again, idempotencyKey: `enabled-${Date.now()}` }).catch(() => ({ created: false }))).created,
        {
          timeout: 5_000,
        },
      )
      .toBe(true);
  });

  it('answers UNAVAILABLE when catalog or media cannot be reached, and still answers a replay from its key', async () => {
    const user = newUser();
    const request = await stylizeRequest(user, 'peers-away');
    const { job } = await h.jobs.createJob(request);
    const { CATALOG_ADDR, MEDIA_ADDR } = h.config;
    try {
      // A fresh replica: nothing cached, every look-up goes to the peer that is away.
      for (const away of [{ CATALOG_ADDR: '127.0.0.1:1' }, { MEDIA_ADDR: '127.0.0.1:1' }]) {
        await h.restart({ CATALOG_ADDR, MEDIA_ADDR, ...away });
        expect(await refusal(h.jobs.createJob({ ...request, idempotencyKey: 'peers-away-new' })), JSON.stringify(away)).toMatchObject({
          code: ErrorCode.UNAVAILABLE,
        });
        const replay = await h.jobs.createJob(request);
        expect([replay.created, replay.job!.id]).toEqual([false, job!.id]);
      }
    } finally {
      await h.restart({ CATALOG_ADDR, MEDIA_ADDR });
    }
  });

  it('with NATS away, still refuses a disabled model once the cache TTL has passed', async () => {
    // Every try served from the stale copy creates a job: no quota in the way.
    await h.restart({
      NATS_URL: 'nats://127.0.0.1:9',
      CATALOG_CACHE_TTL_MS: 1_000,
      QUOTA_DAILY_LIMIT: 10_000,
      QUOTA_MONTHLY_LIMIT: 10_000,
      QUOTA_MAX_IN_FLIGHT: 10_000,
    });
    try {
      const user = newUser();
      const base = await stylizeRequest(user, 'ttl');
      expect((await h.jobs.createJob(base)).created).toBe(true);
      await h.catalog.setModelEnabled({ actor: TEST_OPERATOR_ACTOR, modelId: choice.stylizer.id, enabled: false });
      try {
        // No notice can arrive: the TTL alone bounds how long the enabled copy is served.
        expect(await refusedWithin(base, 'MODEL_DISABLED', 4_000)).toBeLessThan(4_000);
      } finally {
        await h.catalog.setModelEnabled({ actor: TEST_OPERATOR_ACTOR, modelId: choice.stylizer.id, enabled: true });
      }
    } finally {
      await h.restart({
        NATS_URL: testNatsUrl(),
        CATALOG_CACHE_TTL_MS: 30_000,
        QUOTA_DAILY_LIMIT: 20,
        QUOTA_MONTHLY_LIMIT: 300,
        QUOTA_MAX_IN_FLIGHT: 2,
      });
    }
  });
});

describe('jobs - daily quota', () => {
  it('refuses over the daily limit with retry-after until the next UTC day; cancelled jobs do not count', async () => {
    await h.restart({ QUOTA_DAILY_LIMIT: 3, QUOTA_MAX_IN_FLIGHT: 100 });
    try {
      const user = newUser();
      const input = await uploadInputImage(h.media, user);
      const jobs = [];
      for (let i = 0; i < 3; i += 1)
        jobs.push((await h.jobs.createJob(await stylizeRequest(user, `day-${i}`, { inputAssetId: input }))).job!);
      const hitsBefore = await quotaHits();
      const error = await refusal(h.jobs.createJob(await stylizeRequest(user, 'day-3', { inputAssetId: input })));
      const now = new Date();
      const midnight = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
      const expected = Math.ceil((midnight.getTime() - now.getTime()) / 1000);
      expect(error).toMatchObject({
        code: ErrorCode.RESOURCE_EXHAUSTED,
        reason: 'GENERATION_QUOTA_EXCEEDED',
        params: { allowance: 'daily', limit: 3, resetsAt: midnight.toISOString() },
      });
      expect(Math.abs(error.retryAfterSeconds! - expected)).toBeLessThanOrEqual(5);
      // The overview counts the user once among those the daily allowance refused today.
      expect(await quotaHits()).toMatchObject({ dailyUsers: hitsBefore.dailyUsers + 1, monthlyUsers: hitsBefore.monthlyUsers });
      await h.jobs.cancelJob({ jobId: jobs[0]!.id, userId: user });
      expect((await h.jobs.createJob(await stylizeRequest(user, 'day-3', { inputAssetId: input }))).created).toBe(true);
    } finally {
      await h.restart({ QUOTA_DAILY_LIMIT: 20, QUOTA_MAX_IN_FLIGHT: 2 });
    }
  });
});

describe('jobs - the daily quota counts what the vendor was paid for', () => {
  const { ErrorClass } = jobsExecutionV1;

  /** A job of `user` ended as told: claimed, maybe charged (a provider request recorded), then ended. */
  async function endedJob(
    user: string,
    key: string,
    input: string,
    charged: boolean,
    end: 'cancel' | { errorClass: jobsExecutionV1.ErrorClass; errorCode: string } | 'lease-expired',
  ): Promise<void> {
    const job = (await h.jobs.createJob(await stylizeRequest(user, key, { inputAssetId: input }))).job!;
    const workerId = `quota-${key}`;
    await h.db.query('UPDATE jobs.generation_jobs SET max_attempts = 1 WHERE id = $1', [job.id]);
    await h.execution.claimJob({ jobId: job.id, workerId });
    if (charged) await h.execution.recordProviderRequest({ jobId: job.id, workerId, providerRequestId: `pred-${key}-${process.pid}` });
    if (end === 'cancel') await h.jobs.cancelJob({ jobId: job.id, userId: user });
    else if (end === 'lease-expired') {
      await h.db.query(`UPDATE jobs.generation_jobs SET lease_expires_at = started_at + interval '1 ms' WHERE id = $1`, [job.id]);
      await h.app.reaper.runOnce();
    } else {
      await h.execution.failJob({
        jobId: job.id,
        workerId,
        errorClass: end.errorClass,
        errorCode: end.errorCode,
        publicMessage: '',
        internalMessage: '',
        retryable: false,
        abandonProviderRequest: false,
      });
    }
    const status = (await h.jobs.getJob({ jobId: job.id, userId: user })).job!.status;
    expect([jobsV1.JobStatus.CANCELLED, jobsV1.JobStatus.FAILED]).toContain(status);
  }

  // The month counts with the day's rule: with both limits at 4 the same creates fill both, and
  // the refusal names the month (it frees last). A month that counted more would refuse the
  // fourth create; one that counted less would leave the fifth to the daily refusal.
  it.each([
    ['daily', { QUOTA_DAILY_LIMIT: 4, QUOTA_MONTHLY_LIMIT: 300 }, 'GENERATION_QUOTA_EXCEEDED'],
    ['monthly', { QUOTA_DAILY_LIMIT: 4, QUOTA_MONTHLY_LIMIT: 4 }, 'GENERATION_MONTHLY_QUOTA_EXCEEDED'],
  ] as const)(
    '%s: keeps charged jobs counted, cancelled or failed, and gives back the ones never charged or failed by us',
    async (window, limits, reason) => {
      await h.restart({ ...limits, QUOTA_MAX_IN_FLIGHT: 100 });
      try {
        const user = newUser();
        const input = await uploadInputImage(h.media, user);
        // Given back: cancelled before any submission; failed by our own bug; lease expired on the last attempt.
        await endedJob(user, `${window}-free-cancel`, input, false, 'cancel');
        await endedJob(user, `${window}-free-internal`, input, false, { errorClass: ErrorClass.INTERNAL, errorCode: 'INTERNAL_BUG' });
        await endedJob(user, `${window}-free-lease`, input, false, 'lease-expired');
        // Counted: charged, then cancelled; charged, then failed by us; refused by the content policy.
        await endedJob(user, `${window}-paid-cancel`, input, true, 'cancel');
        await endedJob(user, `${window}-paid-internal`, input, true, {
          errorClass: ErrorClass.INTERNAL,
          errorCode: 'INTERNAL_MEDIA_WRITE',
        });
        await endedJob(user, `${window}-refused`, input, false, {
          errorClass: ErrorClass.CONTENT_SAFETY,
          errorCode: 'CONTENT_SAFETY_REJECTED',
        });
        // 3 of 4 used: one more job fits, the next is refused.
        expect(await h.jobs.getQuota({ userId: user })).toMatchObject({ dailyUsed: 3, monthlyUsed: 3 });
        expect((await h.jobs.createJob(await stylizeRequest(user, 'fourth', { inputAssetId: input }))).created).toBe(true);
        expect(await refusal(h.jobs.createJob(await stylizeRequest(user, 'fifth', { inputAssetId: input })))).toMatchObject({
          code: ErrorCode.RESOURCE_EXHAUSTED,
          reason,
        });
      } finally {
        await h.restart({ QUOTA_DAILY_LIMIT: 20, QUOTA_MONTHLY_LIMIT: 300, QUOTA_MAX_IN_FLIGHT: 2 });
      }
    },
  );
  const nextUtcMidnight = () => {
    const now = new Date();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  };
  const nextUtcMonth = () => {
    const now = new Date();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  };

  it('GetQuota counts as CreateJob does: after creates, cancels and failures; 1 left lets exactly one of 6 concurrent creates in; 0 left is refused', async () => {
    await h.restart({ QUOTA_DAILY_LIMIT: 5, QUOTA_MAX_IN_FLIGHT: 100 });
    try {
      const user = newUser();
      const input = await uploadInputImage(h.media, user);
      const quota = () => h.jobs.getQuota({ userId: user });
      expect(await quota()).toMatchObject({
        dailyUsed: 0,
        dailyLimit: 5,
        dailyRemaining: 5,
        dailyResetsAt: nextUtcMidnight(),
        monthlyUsed: 0,
        monthlyLimit: 300,
        monthlyRemaining: 300,
        monthlyResetsAt: nextUtcMonth(),
        inFlight: 0,
        maxInFlight: 100,
        remainingNow: 5,
        countedJobTypes: expect.arrayContaining(['image.stylize', 'image.upscale']),
        dailyRule: expect.stringContaining('cancelled before being sent to the provider'),
      });
      expect((await quota()).countedJobTypes).not.toContain('system.canary');

      // A queued job counts on both; canaries on neither.
      await h.jobs.createJob(await stylizeRequest(user, 'queued', { inputAssetId: input }));
      await h.jobs.createJob(canaryRequest(user, 'canary'));
      expect(await quota()).toMatchObject({ dailyUsed: 1, monthlyUsed: 1, inFlight: 1, remainingNow: 4 });
      // Given back: cancelled before any submission; failed by us. Counted: refused by the content policy; paid, then cancelled.
      await endedJob(user, 'q-free-cancel', input, false, 'cancel');
      await endedJob(user, 'q-free-internal', input, false, { errorClass: ErrorClass.INTERNAL, errorCode: 'INTERNAL_BUG' });
      expect(await quota()).toMatchObject({ dailyUsed: 1, monthlyUsed: 1, inFlight: 1, remainingNow: 4 });
      await endedJob(user, 'q-refused', input, false, { errorClass: ErrorClass.CONTENT_SAFETY, errorCode: 'CONTENT_SAFETY_REJECTED' });
      await endedJob(user, 'q-paid-cancel', input, true, 'cancel');
      expect(await quota()).toMatchObject({
        dailyUsed: 3,
        dailyRemaining: 2,
        monthlyUsed: 3,
        monthlyRemaining: 297,
        inFlight: 1,
        remainingNow: 2,
      });
      await h.jobs.createJob(await stylizeRequest(user, 'fourth', { inputAssetId: input }));
      expect(await quota()).toMatchObject({ dailyUsed: 4, dailyRemaining: 1, inFlight: 2, remainingNow: 1 });

      // 1 left: of 6 creates at once, exactly one is accepted, the others refused as over quota.
      const requests = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => stylizeRequest(user, `race-${i}`, { inputAssetId: input })));
      const outcomes = await Promise.allSettled(requests.map((request) => h.jobs.createJob(request)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
        expect((outcome as PromiseRejectedResult).reason).toMatchObject({
          code: ErrorCode.RESOURCE_EXHAUSTED,
          reason: 'GENERATION_QUOTA_EXCEEDED',
        });
      }

      // 0 left: the next create is refused (the gateway's 429).
      expect(await quota()).toMatchObject({ dailyUsed: 5, dailyRemaining: 0, remainingNow: 0 });
      expect(await refusal(h.jobs.createJob(await stylizeRequest(user, 'after', { inputAssetId: input })))).toMatchObject({
        code: ErrorCode.RESOURCE_EXHAUSTED,
        reason: 'GENERATION_QUOTA_EXCEEDED',
      });
    } finally {
      await h.restart({ QUOTA_DAILY_LIMIT: 20, QUOTA_MAX_IN_FLIGHT: 2 });
    }
  });

  it('GetQuota says 0 left while the in-flight limit is full, and CreateJob agrees until one ends', async () => {
    const user = newUser();
    const input = await uploadInputImage(h.media, user);
    const first = (await h.jobs.createJob(await stylizeRequest(user, 'fly-1', { inputAssetId: input }))).job!;
    await h.jobs.createJob(await stylizeRequest(user, 'fly-2', { inputAssetId: input }));
    expect(await h.jobs.getQuota({ userId: user })).toMatchObject({
      dailyUsed: 2,
      dailyRemaining: 18,
      inFlight: 2,
      maxInFlight: 2,
      inFlightRemaining: 0,
      remainingNow: 0,
    });
    const hitsBefore = await quotaHits();
    const busy = await refusal(h.jobs.createJob(await stylizeRequest(user, 'fly-3', { inputAssetId: input })));
    expect(busy).toMatchObject({
      code: ErrorCode.RESOURCE_EXHAUSTED,
      reason: 'GENERATION_QUOTA_EXCEEDED',
      retryAfterSeconds: 10,
      params: { allowance: 'in_flight', limit: 2 },
    });
    // No reset time: a slot frees when a job ends.
    expect(busy.params).not.toHaveProperty('resetsAt');
    expect(await quotaHits()).toMatchObject({ inFlightUsers: hitsBefore.inFlightUsers + 1, dailyUsers: hitsBefore.dailyUsers });
    await h.jobs.cancelJob({ jobId: first.id, userId: user });
    expect(await h.jobs.getQuota({ userId: user })).toMatchObject({ dailyUsed: 1, inFlight: 1, remainingNow: 1 });
    expect((await h.jobs.createJob(await stylizeRequest(user, 'fly-3', { inputAssetId: input }))).created).toBe(true);
  });

  it('GetQuota refuses a missing user id, naming the field', async () => {
    expect(await refusal(h.jobs.getQuota({ userId: '' }))).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'user_id' });
  });
});

describe('jobs - monthly quota', () => {
  const nextUtcMonth = () => {
    const now = new Date();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  };
  /** Moves jobs' creation to another instant of the database's clock (`at`: SQL over now()). */
  const createdAt = (jobIds: string[], at: string) =>
    h.db.query(`UPDATE jobs.generation_jobs SET created_at = ${at} WHERE id = ANY($1)`, [jobIds]);
  const START_OF_MONTH = `date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;
  // Jobs of the month's earlier days: there are none on the 1st, so these cases cannot be set up then.
  const firstOfTheMonth = new Date().getUTCDate() === 1;

  it.skipIf(firstOfTheMonth)(
    'refuses past the monthly allowance while the day has room: its own reason, retry-after to the next UTC month, the reset, recorded once',
    async () => {
      await h.restart({ QUOTA_DAILY_LIMIT: 3, QUOTA_MONTHLY_LIMIT: 4, QUOTA_MAX_IN_FLIGHT: 100 });
      try {
        const user = newUser();
        const input = await uploadInputImage(h.media, user);
        const create = async (key: string) => h.jobs.createJob(await stylizeRequest(user, key, { inputAssetId: input }));
        const earlier = [];
        for (let i = 0; i < 3; i += 1) earlier.push((await create(`month-${i}`)).job!.id);
        await createdAt(earlier, START_OF_MONTH);
        expect(await h.jobs.getQuota({ userId: user })).toMatchObject({
          dailyUsed: 0,
          dailyRemaining: 3,
          monthlyUsed: 3,
          monthlyRemaining: 1,
          monthlyResetsAt: nextUtcMonth(),
          remainingNow: 1,
        });
        expect((await create('month-3')).created).toBe(true);
        expect(await h.jobs.getQuota({ userId: user })).toMatchObject({
          dailyUsed: 1,
          dailyRemaining: 2,
          monthlyRemaining: 0,
          remainingNow: 0,
        });

        const hitsBefore = await quotaHits();
        const error = await refusal(create('month-4'));
        const expected = Math.ceil((nextUtcMonth().getTime() - Date.now()) / 1000);
        expect(error).toMatchObject({
          code: ErrorCode.RESOURCE_EXHAUSTED,
          reason: 'GENERATION_MONTHLY_QUOTA_EXCEEDED',
          message: 'monthly limit of 4 generations reached; it resets on the 1st of next month at 00:00 UTC',
          params: { allowance: 'monthly', limit: 4, resetsAt: nextUtcMonth().toISOString() },
        });
        expect(Math.abs(error.retryAfterSeconds! - expected)).toBeLessThanOrEqual(5);
        // Counted once for the month, however often the user is refused.
        await refusal(create('month-5'));
        expect(await quotaHits()).toMatchObject({
          monthStart: new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1)),
          monthlyUsers: hitsBefore.monthlyUsers + 1,
          dailyUsers: hitsBefore.dailyUsers,
        });
      } finally {
        await h.restart({ QUOTA_DAILY_LIMIT: 20, QUOTA_MONTHLY_LIMIT: 300, QUOTA_MAX_IN_FLIGHT: 2 });
      }
    },
  );

  it.skipIf(firstOfTheMonth)(
    'with 1 left in the month and room in the day, exactly one of 12 concurrent creates on two replicas is accepted',
    async () => {
      await h.restart({ QUOTA_DAILY_LIMIT: 5, QUOTA_MONTHLY_LIMIT: 5, QUOTA_MAX_IN_FLIGHT: 100 });
      const replica = await h.startReplica();
      try {
        const user = newUser();
        const input = await uploadInputImage(h.media, user);
        const earlier = [];
        for (let i = 0; i < 4; i += 1)
          earlier.push((await h.jobs.createJob(await stylizeRequest(user, `m-${i}`, { inputAssetId: input }))).job!.id);
        await createdAt(earlier, START_OF_MONTH);
        expect(await h.jobs.getQuota({ userId: user })).toMatchObject({ dailyRemaining: 5, monthlyRemaining: 1, remainingNow: 1 });

        const requests = await Promise.all(
          Array.from({ length: 12 }, (_, i) => stylizeRequest(user, `m-race-${i}`, { inputAssetId: input })),
        );
        const outcomes = await Promise.allSettled(requests.map((request, i) => (i % 2 ? replica.jobs : h.jobs).createJob(request)));
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        for (const outcome of outcomes.filter((o) => o.status === 'rejected')) {
          expect((outcome as PromiseRejectedResult).reason).toMatchObject({
            code: ErrorCode.RESOURCE_EXHAUSTED,
            reason: 'GENERATION_MONTHLY_QUOTA_EXCEEDED',
          });
        }
        expect(await countRows('SELECT count(*) AS n FROM jobs.generation_jobs WHERE user_id = $1', [user])).toBe(5);
      } finally {
        await replica.stop();
        await h.restart({ QUOTA_DAILY_LIMIT: 20, QUOTA_MONTHLY_LIMIT: 300, QUOTA_MAX_IN_FLIGHT: 2 });
      }
    },
  );

  it("does not count last month's jobs: the month starts again at 00:00 UTC on the 1st", async () => {
    await h.restart({ QUOTA_DAILY_LIMIT: 2, QUOTA_MONTHLY_LIMIT: 2, QUOTA_MAX_IN_FLIGHT: 100 });
    try {
      const user = newUser();
      const input = await uploadInputImage(h.media, user);
      const create = async (key: string) => h.jobs.createJob(await stylizeRequest(user, key, { inputAssetId: input }));
      const jobs = [(await create('last-0')).job!.id, (await create('last-1')).job!.id];
      // Both allowances are used up at once; the month frees last, so the refusal names it.
      expect(await refusal(create('last-2'))).toMatchObject({ reason: 'GENERATION_MONTHLY_QUOTA_EXCEEDED' });
      await createdAt(jobs, `${START_OF_MONTH} - interval '1 millisecond'`);
      expect(await h.jobs.getQuota({ userId: user })).toMatchObject({ dailyUsed: 0, monthlyUsed: 0, inFlight: 2, remainingNow: 2 });
      expect((await create('last-2')).created).toBe(true);
    } finally {
      await h.restart({ QUOTA_DAILY_LIMIT: 20, QUOTA_MONTHLY_LIMIT: 300, QUOTA_MAX_IN_FLIGHT: 2 });
    }
  });
});

describe('jobs - GetJob, ListJobs, CancelJob', () => {
  it('shows the owner a job with its queue position and timings, and nobody else', async () => {
    const user = newUser();
    const a = (await h.jobs.createJob(canaryRequest(user, 'pos-a'))).job!;
    const b = (await h.jobs.createJob(canaryRequest(user, 'pos-b'))).job!;
    const first = (await h.jobs.getJob({ jobId: a.id, userId: user })).job!;
    const second = (await h.jobs.getJob({ jobId: b.id, userId: user })).job!;
    expect(second.queuePosition).toBe(first.queuePosition! + 1);
    expect(second.timings).toMatchObject({ runningMs: 0, attempts: [] });
    expect(await refusal(h.jobs.getJob({ jobId: a.id, userId: newUser() }))).toMatchObject({
      code: ErrorCode.NOT_FOUND,
      reason: 'JOB_NOT_FOUND',
    });
    expect(await refusal(h.jobs.getJob({ jobId: 'nope', userId: user }))).toMatchObject({ field: 'job_id' });
  });

  it("pages through a user's jobs newest first, stable while new jobs arrive, with a status filter", async () => {
    const user = newUser();
    const created: string[] = [];
    for (let i = 0; i < 5; i += 1) created.push((await h.jobs.createJob(canaryRequest(user, `list-${i}`))).job!.id);
    const seen: string[] = [];
    let token = '';
    do {
      const page = await h.jobs.listJobs({ userId: user, status: jobsV1.JobStatus.UNSPECIFIED, pageSize: 2, pageToken: token });
      seen.push(...page.jobs.map((j) => j.id));
      await h.jobs.createJob(canaryRequest(user, `list-late-${seen.length}`)); // arrives between pages
      token = page.nextPageToken;
    } while (token);
    expect(seen).toEqual([...created].reverse());
    await h.jobs.cancelJob({ jobId: created[0]!, userId: user });
    const cancelled = await h.jobs.listJobs({ userId: user, status: jobsV1.JobStatus.CANCELLED, pageSize: 0, pageToken: '' });
    expect(cancelled.jobs.map((j) => j.id)).toEqual([created[0]]);
    expect(await refusal(h.jobs.listJobs({ userId: user, status: 0, pageSize: 0, pageToken: 'bogus' }))).toMatchObject({
      field: 'page_token',
    });
  });

  it('pages exactly through jobs created within the same millisecond', async () => {
    const user = newUser();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await h.jobs.createJob(canaryRequest(user, `same-ms-${i}`))).job!.id);
    await h.db.query(`UPDATE jobs.generation_jobs SET created_at = '2026-11-30T10:00:00.123456Z' WHERE id = ANY($1)`, [ids]);
    const seen: string[] = [];
    let token = '';
    do {
      const page = await h.jobs.listJobs({ userId: user, status: jobsV1.JobStatus.UNSPECIFIED, pageSize: 2, pageToken: token });
      seen.push(...page.jobs.map((j) => j.id));
      token = page.nextPageToken;
    } while (token);
    expect(seen).toEqual([...ids].sort().reverse());
  });

  it('cancels a queued job once, announces it, and refuses a second cancel', async () => {
    const user = newUser();
    const job = (await h.jobs.createJob(canaryRequest(user, 'cancel-me'))).job!;
    const cancelled = (await h.jobs.cancelJob({ jobId: job.id, userId: user })).job!;
    expect(cancelled).toMatchObject({ status: jobsV1.JobStatus.CANCELLED });
    expect(cancelled.completedAt).toBeInstanceOf(Date);
    expect(await refusal(h.jobs.cancelJob({ jobId: job.id, userId: user }))).toMatchObject({
      code: ErrorCode.FAILED_PRECONDITION,
      reason: 'JOB_ALREADY_FINISHED',
    });
    expect(await refusal(h.jobs.cancelJob({ jobId: job.id, userId: newUser() }))).toMatchObject({ code: ErrorCode.NOT_FOUND });
    const outbox = await h.db.query(`SELECT event_type, subject FROM jobs.outbox WHERE aggregate_id = $1 ORDER BY id`, [job.id]);
    expect(outbox.rows.map((r) => r.event_type)).toEqual(['job.dispatch', 'job.cancelled']);
    expect(outbox.rows[1].subject).toBe(h.topology.eventSubject('cancelled'));
  });

  it('cancels a running job; the worker hears STOP/CANCELLED at its next heartbeat', async () => {
    const user = newUser();
    const job = (await h.jobs.createJob(canaryRequest(user, 'cancel-running'))).job!;
    await h.execution.claimJob({ jobId: job.id, workerId: 'worker-a' });
    expect((await h.jobs.cancelJob({ jobId: job.id, userId: user })).job!.status).toBe(jobsV1.JobStatus.CANCELLED);
    const beat = await h.execution.heartbeat({ jobId: job.id, workerId: 'worker-a', progress: 50 });
    expect(beat).toMatchObject({ directive: jobsExecutionV1.HeartbeatDirective.STOP, stopReason: jobsExecutionV1.StopReason.CANCELLED });
  });
});

describe('jobs - WatchJob', () => {
  it('streams each change until the job is terminal, then ends', async () => {
    const user = newUser();
    const job = (await h.jobs.createJob(canaryRequest(user, 'watch-me'))).job!;
    const seen: { status: jobsV1.JobStatus; progress: number; version: number }[] = [];
    const watching = (async () => {
      for await (const update of h.jobs.raw.watchJob({
        jobId: job.id,
        userId: user,
        afterVersion: 0,
      }) as AsyncIterable<jobsV1.WatchJobResponse>) {
        seen.push({ status: update.job!.status, progress: update.job!.progress, version: update.job!.version });
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await h.execution.claimJob({ jobId: job.id, workerId: 'watch-worker' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await h.execution.heartbeat({ jobId: job.id, workerId: 'watch-worker', progress: 40 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await h.execution.completeJob({ jobId: job.id, workerId: 'watch-worker', outputAssetId: '', outputSha256: '' });
    await watching;
    expect(seen.map((s) => [s.status, s.progress])).toEqual([
      [jobsV1.JobStatus.QUEUED, 0],
      [jobsV1.JobStatus.RUNNING, 0],
      [jobsV1.JobStatus.RUNNING, 40],
      [jobsV1.JobStatus.SUCCEEDED, 100],
    ]);
    expect(seen.map((s) => s.version)).toEqual([...seen.map((s) => s.version)].sort((a, b) => a - b));
    const resumed: number[] = [];
    for await (const update of h.jobs.raw.watchJob({
      jobId: job.id,
      userId: user,
      afterVersion: seen.at(-1)!.version,
    }) as AsyncIterable<jobsV1.WatchJobResponse>) {
      resumed.push(update.job!.version);
    }
    expect(resumed).toEqual([]);
  });
});

describe('jobs - WatchJob across replicas (LISTEN/NOTIFY)', () => {
  it('wakes a stream served by replica A promptly when replica B changes the job; idle streams read nothing', async () => {
    const replicaB = await h.startReplica();
    const hubA = h.app.context.watchHub;
    const controller = new AbortController();
    try {
      const user = newUser();
      const job = (await h.jobs.createJob(canaryRequest(user, 'watch-across'))).job!;
      const seen: { status: jobsV1.JobStatus; progress: number; at: number }[] = [];
      const stream = (afterVersion: number, record: boolean) =>
        (async () => {
          const call = h.jobs.raw.watchJob({ jobId: job.id, userId: user, afterVersion });
          controller.signal.addEventListener('abort', () => call.cancel(), { once: true });
          try {
            for await (const update of call as AsyncIterable<jobsV1.WatchJobResponse>) {
              if (record) seen.push({ status: update.job!.status, progress: update.job!.progress, at: Date.now() });
            }
          } catch (error) {
            if (!controller.signal.aborted) throw error;
          }
        })();
      const watched = stream(0, true);
      // 20 more idle streams on the same job, already up to date.
      const idle = Array.from({ length: 20 }, () => stream(job.version, false));
      await new Promise((resolve) => setTimeout(resolve, 300));

      // Idle: a poll every 500 ms would have woken 21 streams 4 times each by now.
      const before = hubA.wakeups;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(hubA.wakeups - before).toBe(0);

      const changedAt = Date.now();
      await replicaB.execution.claimJob({ jobId: job.id, workerId: 'replica-b-worker' });
      const deadline = Date.now() + 5_000;
      while (seen.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen.map((s) => s.status)).toEqual([jobsV1.JobStatus.QUEUED, jobsV1.JobStatus.RUNNING]);
      // Far sooner than the 15 s safety re-read.
      expect(seen[1]!.at - changedAt).toBeLessThan(1_500);

      await replicaB.execution.heartbeat({ jobId: job.id, workerId: 'replica-b-worker', progress: 60 });
      await replicaB.execution.completeJob({ jobId: job.id, workerId: 'replica-b-worker', outputAssetId: '', outputSha256: '' });
      await watched;
      expect(seen.at(-1)!.status).toBe(jobsV1.JobStatus.SUCCEEDED);
      await Promise.all(idle); // a terminal job ends every stream
    } finally {
      controller.abort();
      await replicaB.stop();
    }
  });
});

describe('jobs - published messages carry ids only', () => {
  it('puts no prompt or user data on NATS', async () => {
    const user = newUser();
    const { job } = await h.jobs.createJob(await stylizeRequest(user, 'privacy', { prompt: 'SECRET-PROMPT-TEXT' }));
    await h.jobs.cancelJob({ jobId: job!.id, userId: user });
    const jsm = await jetstreamManager(h.nats);
    const payloads: string[] = [];
    const deadline = Date.now() + 5_000;
    // A dispatch, the lifecycle event, and the product events of the submission and the cancel.
    while (Date.now() < deadline && payloads.filter((p) => p.includes(job!.id)).length < 4) {
      payloads.length = 0;
      for (const stream of [h.topology.jobsStream, h.topology.eventsStream, h.topology.productEventsStream]) {
        const { state } = await jsm.streams.info(stream);
        for (let seq = state.first_seq; seq <= state.last_seq; seq += 1) {
          const message = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
          if (message) payloads.push(message.string());
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const mine = payloads.filter((p) => p.includes(job!.id));
    expect(mine.length).toBeGreaterThanOrEqual(4);
    for (const payload of mine) {
      expect(payload).not.toContain('SECRET-PROMPT-TEXT');
      expect(payload).not.toContain(user);
      const keys = Object.keys(JSON.parse(payload) as object);
      expect(
        keys.every((k) =>
          [
            ...['jobId', 'jobType', 'queue', 'attempt', 'dueAt', 'eventType', 'status', 'errorCode', 'outputAssetId', 'occurredAt'],
            ...['eventId', 'eventName', 'userRef', 'props'],
          ].includes(k),
        ),
      ).toBe(true);
    }
  });
});

describe('jobs - who may call what', () => {
  it('lets only the worker claim jobs, only the gateway and operators use the admin API, and community only read a job', async () => {
    const asCommunity = await testClient(jobsExecutionV1.JobExecutionServiceClient, h.address, 'community');
    const adminAsWorker = await testClient(jobsAdminV1.JobsAdminServiceClient, h.address, 'worker');
    const adminAsOps = await testClient(jobsAdminV1.JobsAdminServiceClient, h.address, 'ops');
    const jobsAsCommunity = await testClient(jobsV1.JobsServiceClient, h.address, 'community');
    try {
      await expect(asCommunity.claimJobs({ claims: [] })).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
        message: expect.stringContaining('service community may not call /atelier.jobs.v1.JobExecutionService/ClaimJobs'),
      });
      await expect(adminAsWorker.getQueueStats({})).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
      await expect(adminAsOps.getQueueStats({})).resolves.toBeDefined();
      await expect(jobsAsCommunity.listJobs(jobsV1.ListJobsRequest.fromPartial({ userId: 'someone', pageSize: 5 }))).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
      });
      await expect(jobsAsCommunity.getQuota({ userId: 'someone' })).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
      await expect(jobsAsCommunity.getJob({ jobId: '00000000-0000-7000-8000-000000000000', userId: 'someone' })).rejects.toMatchObject({
        code: ErrorCode.NOT_FOUND,
      });
    } finally {
      for (const client of [asCommunity, adminAsWorker, adminAsOps, jobsAsCommunity]) client.close();
    }
  });
});
