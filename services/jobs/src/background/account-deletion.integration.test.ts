import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { decodeAccountDeleted, selectAccountDeletion } from '@atelier/account-deletion';
import { inTransaction, uuidv7 } from '@atelier/db';
import { insertAccountDeletion, JOBS_ACCOUNT_DELETIONS } from '../db/account-deletion-sql.js';
import { createJobs } from '../db/transitions/create-sql.js';
import { suiteJobsPool, testOutboxSubjects } from '../test-support/jobs-database.js';
import { newCanaryJob } from '../test-support/new-job.js';
import { jobsAccountDeletion } from './account-deletion.js';
import type { AnnounceTargets } from '../announce/announce.js';

/**
 * The jobs part of deleting an account on its statements: the request writes the event the other
 * services decode (@atelier/account-deletion), and the part cancels and deletes the user's jobs.
 */
const pool = suiteJobsPool();
const subjects = testOutboxSubjects();

const targets = () =>
  ({
    onOutboxWrite: vi.fn(),
    relay: { publishClaimed: vi.fn() },
    watchHub: { changed: vi.fn() },
    metrics: { ended: vi.fn() },
  }) as unknown as AnnounceTargets;

describe('the jobs part of deleting an account', () => {
  it('requests with an AccountDeletedEvent in the outbox that the consuming services decode', async () => {
    const userId = `deleted-${randomBytes(4).toString('hex')}`;
    const request = await inTransaction(pool, (client) =>
      insertAccountDeletion(client, { userId, deletionId: uuidv7(), subject: subjects.accountDeleted }),
    );
    const { rows } = await pool.query<{ payload: object; subject: string }>(
      `SELECT payload, subject FROM jobs.outbox WHERE event_type = 'account.deleted' AND aggregate_id = $1`,
      [request.deletion_id],
    );
    expect(rows).toHaveLength(1);
    // The relay publishes the payload as JSON (libs/outbox outbox-relay.ts).
    const body = new TextEncoder().encode(JSON.stringify(rows[0]!.payload));
    expect(decodeAccountDeleted(body)).toEqual({
      deletionId: request.deletion_id,
      userId,
      requestedAt: request.requested_at,
    });
    expect(rows[0]!.subject).toBe(subjects.accountDeleted);
  });

  it('cancels the jobs in flight, deletes every job of the user and counts them, and completes; a forged event is ignored', async () => {
    const userId = `deleted-${randomBytes(4).toString('hex')}`;
    const other = `kept-${randomBytes(4).toString('hex')}`;
    const jobs = [newCanaryJob({ userId }), newCanaryJob({ userId }), newCanaryJob({ userId: other })];
    await createJobs(pool, jobs, ['t', 't', 't'], subjects);
    // A billed vendor call of each user's first job: the deleted user's keeps its money, not its owner.
    for (const [job, owner] of [
      [jobs[0]!, userId],
      [jobs[2]!, other],
    ] as const) {
      await pool.query(
        `INSERT INTO jobs.provider_calls (job_id, user_id, attempt, call_kind, request_key, vendor_id, provider_code, provider_model,
           model_version, credential_mode, credential_id, outcome, latency_ms, predict_time_ms, billable, cost_micros, currency, called_at)
         VALUES ($1, $2, 1, 'poll', $3, $3, 'sim', 'm', '1', 'platform_key', 'platform:x', 'ok', 5, 1000, true, 2300, 'USD', now())`,
        [job.id, owner, `r-${job.id}`],
      );
    }
    const ledgerOf = async (job: { id: string }) =>
      (await pool.query(`SELECT user_id, cost_micros::int AS cost FROM jobs.provider_calls WHERE job_id = $1`, [job.id])).rows;
    const request = await inTransaction(pool, (client) =>
      insertAccountDeletion(client, { userId, deletionId: uuidv7(), subject: subjects.accountDeleted }),
    );
    const logger = { warn: vi.fn(), info: vi.fn(), error: vi.fn() };
    const context = { ...targets(), pool, outboxSubjects: () => subjects, logger } as unknown as Parameters<typeof jobsAccountDeletion>[0];
    const jobsOf = async (user: string) => (await pool.query(`SELECT id FROM jobs.generation_jobs WHERE user_id = $1`, [user])).rowCount;

    await jobsAccountDeletion(context)({ deletionId: uuidv7(), userId, requestedAt: new Date() });
    expect(await jobsOf(userId), 'an event naming another deletion is forged').toBe(2);

    await jobsAccountDeletion(context)({ deletionId: request.deletion_id, userId, requestedAt: request.requested_at });
    expect(await jobsOf(userId)).toBe(0);
    expect(await jobsOf(other)).toBe(1);
    expect(await ledgerOf(jobs[0]!)).toEqual([{ user_id: null, cost: 2300 }]);
    expect(await ledgerOf(jobs[2]!)).toEqual([{ user_id: other, cost: 2300 }]);
    expect(context.watchHub.changed).toHaveBeenCalledTimes(2);
    expect(await selectAccountDeletion(pool, JOBS_ACCOUNT_DELETIONS, userId)).toMatchObject({
      deletion_id: request.deletion_id,
      removed: 2,
      completed_at: expect.any(Date),
    });
  });
});
