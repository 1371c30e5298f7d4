// A worker frozen (SIGSTOP: a stalled VM, a GC pause, a node partitioned away) while its job runs
// at the vendor. Its lease lapses and another worker takes the job over — within the lease + 5 s of
// the freeze (docs/fault-model.md), resuming the prediction the first recorded: charged once. When
// the frozen worker wakes (SIGCONT) its lease is gone: it neither completes the job nor pays again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@atelier/testing';
import { startChaosPlatform, type ChaosPlatform } from './chaos-platform.js';
import {
  TAKEOVER_BOUND_MS,
  TAKEOVER_SETTINGS,
  freezeHolderMidJob,
  lastLeaseOf,
  readTakeoverLegs,
  workerOutcomes,
} from './worker-freeze.js';

let chaos: ChaosPlatform;
beforeAll(async () => {
  chaos = await startChaosPlatform({ workers: 2, ...TAKEOVER_SETTINGS });
});
afterAll(async () => {
  await chaos?.stop();
});

describe('chaos - a worker frozen mid-job', () => {
  it('SIGSTOP while the vendor works: another worker completes the job within the lease + 5 s, charged once; woken, the first changes nothing', async () => {
    const { api, db } = chaos;
    // 8 s at the vendor: the freeze comes while it works, and the prediction is ready when the
    // other worker resumes it.
    const holder = await freezeHolderMidJob(chaos, 'frozen-holder', 8_000);
    const lease = await lastLeaseOf(db, holder, 60_000);
    const job = await api.waitTerminal(holder.jobId, 60_000);
    const legs = await readTakeoverLegs(db, holder, lease);
    console.log(`takeover legs (ms after the freeze): ${JSON.stringify(legs)}`);

    expect(job.status).toBe('succeeded');
    expect(job.attempts.count).toBe(2);
    expect(legs.completedBy).not.toBe(`worker:${holder.frozenOwner}`);
    expect(legs.completedBy).toBe(legs.claimedBy);
    expect(legs.succeeded!, 'succeeded within the lease + 5 s of the freeze').toBeLessThanOrEqual(TAKEOVER_BOUND_MS);
    const predictionId = await chaos.recordedPrediction(holder.jobId);
    expect(await chaos.charges(holder.jobId)).toBe(1);

    // The frozen worker wakes: its heartbeat (or its completion) is refused, and it lets go.
    const woken = holder.frozen;
    woken.resume();
    await waitUntil(async () => (await workerOutcomes(woken, 'lease_lost')) === 1, {
      what: 'the woken worker to give the job up (lease_lost)',
      timeoutMs: 15_000,
    });
    expect(await workerOutcomes(woken, 'succeeded')).toBe(0);
    const after = await api.getJob(holder.jobId);
    expect(after).toMatchObject({ status: 'succeeded', outputAssetId: job.outputAssetId, version: job.version });
    expect(await chaos.recordedPrediction(holder.jobId)).toBe(predictionId);
    expect(await chaos.charges(holder.jobId)).toBe(1);
    const billed = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM jobs.provider_calls WHERE job_id = $1 AND billable`, [
      holder.jobId,
    ]);
    expect(billed.rows[0]!.n).toBe(1);
    const ends = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs.job_events WHERE job_id = $1 AND to_status = 'succeeded'`,
      [holder.jobId],
    );
    expect(ends.rows[0]!.n).toBe(1);
  });
});
