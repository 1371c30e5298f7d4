import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JobRow } from '../job-row.js';
import { claim } from './claim-sql.js';
import { complete } from './complete-sql.js';
import { createJobs, createJobWithinQuota, type NewJob } from './create-sql.js';
import { expireStartDeadlines } from './expire-sql.js';
import { applyFailure } from './fail-sql.js';
import { updateProviderRequest } from './provider-request-sql.js';
import { release } from './release-sql.js';
import { suiteJobsPool, testOutboxSubjects } from '../../test-support/jobs-database.js';
import { newCanaryJob } from '../../test-support/new-job.js';

/**
 * Start deadlines at the statements that keep them (domain/start-deadline.ts): the claim refuses a
 * job past its deadline whether or not the sweep ran, the sweep ends it as a terminal transition
 * does, and the quota does not count it. A deadline is made to pass by moving the job's clock
 * back (created_at and start_deadline_at together) rather than by waiting;
 * jobs-start-deadline.integration.test.ts waits for real.
 */

const pool = suiteJobsPool();
const subjects = testOutboxSubjects();

const user = () => `deadline-user-${randomBytes(4).toString('hex')}`;

async function created(overrides: Partial<NewJob> = {}): Promise<JobRow> {
  const [outcome] = await createJobs(pool, [newCanaryJob({ userId: user(), ...overrides })], ['test'], subjects);
  return outcome!.job!;
}

/** The job as if it had been created `seconds` earlier: its deadline moves with it. */
async function ageBy(jobId: string, seconds: number): Promise<void> {
  await pool.query(
    `UPDATE jobs.generation_jobs SET created_at = created_at - $2 * interval '1 second',
            start_deadline_at = start_deadline_at - $2 * interval '1 second' WHERE id = $1`,
    [jobId, seconds],
  );
}

async function row(jobId: string): Promise<JobRow> {
  return (await pool.query<JobRow>('SELECT * FROM jobs.generation_jobs WHERE id = $1', [jobId])).rows[0]!;
}

/** Ends every job past its deadline; answers the ids this test cares about among them. */
async function sweep(...jobIds: string[]): Promise<string[]> {
  const ended = await expireStartDeadlines(pool, 500, subjects);
  return ended.map((job) => job.id).filter((id) => jobIds.includes(id));
}

async function claimed(jobId: string, workerId = 'worker-a') {
  const [result] = await claim(pool, [{ jobId, workerId }], 60_000);
  return result!;
}

describe('start deadline - create', () => {
  it('stores the deadline startWithinSeconds after the creation, and none without it', async () => {
    const job = await created({ startWithinSeconds: 30 });
    expect(job.start_deadline_at!.getTime() - job.created_at.getTime()).toBe(30_000);
    expect((await created()).start_deadline_at).toBeNull();
  });
});

describe('start deadline - claim', () => {
  it('refuses a job past its deadline before any sweep ran, leaving it queued with no attempt', async () => {
    const job = await created({ startWithinSeconds: 1 });
    await ageBy(job.id, 2);
    expect(await claimed(job.id)).toMatchObject({ changed: false, found: { status: 'queued', startDeadlinePassed: true } });
    expect(await row(job.id)).toMatchObject({ status: 'queued', attempt_count: 0, started_at: null, lease_owner: null });
  });

  it('claims a job within its deadline; once running, its deadline passing changes nothing', async () => {
    const job = await created({ startWithinSeconds: 60 });
    expect(await claimed(job.id)).toMatchObject({ changed: true, job: { status: 'running', attempt_count: 1 } });
    await ageBy(job.id, 120);
    expect(await sweep(job.id)).toEqual([]);
    const [done] = await complete(pool, [{ jobId: job.id, workerId: 'worker-a', outputAssetId: null, outputOwnerId: null }], subjects);
    expect(done).toMatchObject({ changed: true, job: { status: 'succeeded' } });
  });

  it('binds the first start only: a job queued again after a failed attempt is claimed past its deadline', async () => {
    const job = await created({ startWithinSeconds: 1 });
    await claimed(job.id);
    const retried = await applyFailure(
      pool,
      {
        jobId: job.id,
        workerId: 'worker-a',
        attempt: 1,
        failure: { errorClass: 'provider', errorCode: 'PROVIDER_ERROR', publicMessage: 'p', internalMessage: 'i' },
        abandonProviderRequest: false,
      },
      { outcome: 'requeue', delayMs: 0 },
      subjects,
    );
    expect(retried).toMatchObject({ changed: true, job: { status: 'queued', attempt_count: 1 } });
    await ageBy(job.id, 2);
    expect(await sweep(job.id)).toEqual([]);
    expect(await claimed(job.id, 'worker-b')).toMatchObject({ changed: true, job: { status: 'running', attempt_count: 2 } });
  });

  it('binds a job a stopping worker handed back before the vendor heard of it, and never one that reached the vendor', async () => {
    const untouched = await created({ startWithinSeconds: 1 });
    const submitted = await created({ startWithinSeconds: 1 });
    for (const job of [untouched, submitted]) await claimed(job.id);
    await updateProviderRequest(pool, { jobId: submitted.id, workerId: 'worker-a', providerRequestId: `pred-${submitted.id}` });
    for (const job of [untouched, submitted]) {
      expect(await release(pool, { jobId: job.id, workerId: 'worker-a', reason: 'shutdown' }, subjects)).toMatchObject({
        changed: true,
        job: { status: 'queued', attempt_count: 0 },
      });
      await ageBy(job.id, 2);
    }
    expect(await claimed(untouched.id, 'worker-b')).toMatchObject({ changed: false, found: { startDeadlinePassed: true } });
    expect(await sweep(untouched.id, submitted.id)).toEqual([untouched.id]);
    expect(await claimed(submitted.id, 'worker-b')).toMatchObject({ changed: true, job: { status: 'running' } });
  });
});

describe('start deadline - the sweep', () => {
  it('cancels the job with START_DEADLINE_EXCEEDED, an event by system:deadline and its job.cancelled event, once', async () => {
    const job = await created({ startWithinSeconds: 5 });
    const waiting = await created({ startWithinSeconds: 600 });
    await ageBy(job.id, 6);
    expect(await sweep(job.id, waiting.id)).toEqual([job.id]);
    expect(await sweep(job.id, waiting.id)).toEqual([]);

    expect(await row(job.id)).toMatchObject({
      status: 'cancelled',
      attempt_count: 0,
      started_at: null,
      cancel_requested_at: null,
      provider_request_id: null,
      error_code: 'START_DEADLINE_EXCEEDED',
      error_message:
        'No worker could start this generation within the 5 seconds it allowed (startWithinSeconds); it was not run and not charged.',
    });
    expect((await row(job.id)).completed_at).not.toBeNull();
    expect((await row(waiting.id)).status).toBe('queued');
    const events = await pool.query(
      'SELECT from_status, to_status, attempt, actor, error_code FROM jobs.job_events WHERE job_id = $1 ORDER BY id',
      [job.id],
    );
    expect(events.rows).toEqual([
      { from_status: null, to_status: 'queued', attempt: 0, actor: 'test', error_code: null },
      { from_status: 'queued', to_status: 'cancelled', attempt: 0, actor: 'system:deadline', error_code: 'START_DEADLINE_EXCEEDED' },
    ]);
    const outbox = await pool.query(`SELECT event_type, subject, payload FROM jobs.outbox WHERE aggregate_id = $1 ORDER BY id`, [job.id]);
    expect(outbox.rows.map((r) => r.event_type)).toEqual(['job.dispatch', 'job.cancelled']);
    expect(outbox.rows[1]).toMatchObject({
      subject: 't.events.cancelled',
      payload: { jobId: job.id, status: 'JOB_STATUS_CANCELLED', errorCode: 'START_DEADLINE_EXCEEDED', attempt: 0 },
    });
    // Ended: a late claim finds it terminal.
    expect(await claimed(job.id)).toMatchObject({ changed: false, found: { status: 'cancelled' } });
  });

  it('leaves a job a claim holds to the claim (SKIP LOCKED), and ends it afterwards if the claim was refused', async () => {
    const job = await created({ startWithinSeconds: 1 });
    await ageBy(job.id, 2);
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM jobs.generation_jobs WHERE id = $1 FOR UPDATE', [job.id]);
      expect(await sweep(job.id)).toEqual([]);
      await holder.query('ROLLBACK');
    } finally {
      holder.release();
    }
    expect(await sweep(job.id)).toEqual([job.id]);
  });
});

describe('start deadline - quota', () => {
  const quota = { jobTypes: ['system.canary'], dailyLimit: 1, monthlyLimit: 1, maxInFlight: 1 };
  const createCounted = (userId: string, startWithinSeconds: number | null = null) =>
    createJobWithinQuota(pool, newCanaryJob({ userId, startWithinSeconds }), 'test', quota, subjects);

  it('counts a job past its deadline neither for the day nor in flight, before the sweep and after it', async () => {
    const owner = user();
    const first = await createCounted(owner, 1);
    expect(first.outcome.inserted).toBe(true);
    // While it may still start, it holds both of this user's single slots.
    expect(await createCounted(owner)).toMatchObject({
      outcome: { inserted: false, job: null },
      usage: { today: 1, thisMonth: 1, inFlight: 1 },
    });

    await ageBy(first.outcome.job!.id, 2);
    const beforeSweep = await createCounted(owner);
    expect(beforeSweep).toMatchObject({ outcome: { inserted: true }, usage: { today: 0, thisMonth: 0, inFlight: 0 } });

    // The new job takes the slots; the expired one, ended now, still takes none.
    expect(await sweep(first.outcome.job!.id)).toEqual([first.outcome.job!.id]);
    expect(await createCounted(owner)).toMatchObject({
      outcome: { inserted: false, job: null },
      usage: { today: 1, thisMonth: 1, inFlight: 1 },
    });
  });
});
