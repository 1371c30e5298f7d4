// Our own services blip while a job runs: media dies and comes back, or hangs for 12 s, just as
// the worker stores the output; jobs is away for 40 s while dispatches wait, and for 60 s while a
// job runs at the vendor (its usage ledger must come out whole); the worker is told to stop (a
// rollout) mid-job. Each is a wait: the job succeeds, once, charged once.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil, type ApiJob, type MobileApi } from '@atelier/testing';
import { startChaosPlatform, type ChaosPlatform } from './chaos-platform.js';

let chaos: ChaosPlatform;
beforeAll(async () => {
  chaos = await startChaosPlatform({ workers: 1 });
});
afterAll(async () => {
  await chaos?.stop();
});

/** A stylize job of 3 s at the vendor, followed until its progress passes `progress`. */
async function jobNearItsEnd(api: MobileApi, key: string, progress = 60): Promise<string> {
  const input = await api.uploadPhoto();
  const created = await api.createJob(await api.stylizeBody(input, `${key} #sim-latency=3000`), key);
  expect(created.status).toBe(201);
  const jobId = created.body.job.id;
  let job: ApiJob | undefined;
  await waitUntil(async () => (job = await api.getJob(jobId)).status === 'running' && job.progress >= progress, {
    what: `the job passes ${progress} %`,
    timeoutMs: 20_000,
  });
  return jobId;
}

/**
 * `leaseMayLapse`: the blip outlasted the lease (jobs was away longer than it), so jobs may have
 * given the job a second attempt — one that resumes the prediction the first recorded.
 */
async function expectSucceededOnce(jobId: string, { leaseMayLapse = false } = {}): Promise<void> {
  const { api } = chaos;
  let job = await api.waitTerminal(jobId, 90_000);
  expect(job.status).toBe('succeeded');
  if (job.attempts.count !== 1) {
    expect(leaseMayLapse, 'a second attempt').toBe(true);
    expect(job.attempts.count).toBe(2);
    const reaped = await chaos.db.query(
      `SELECT count(*)::int AS n FROM jobs.job_events WHERE job_id = $1 AND actor = 'reaper' AND error_code = 'LEASE_EXPIRED'`,
      [jobId],
    );
    expect(reaped.rows[0].n, 'the first attempt ended by its lapsed lease').toBe(1);
  }
  expect(await chaos.charges(jobId)).toBe(1);
  // Just after media came back the gateway may not reach it yet: the job reads succeeded without
  // its URL for a moment, and the app's next poll has it.
  await waitUntil(async () => Boolean((job = await api.getJob(jobId)).outputUrl), { what: 'the output URL', timeoutMs: 10_000 });
  const output = await fetch(job.outputUrl!);
  expect(output.status).toBe(200);
}

describe('chaos - media blips while the output is stored', () => {
  it('media killed and restarted: the job succeeds, charged once', async () => {
    const { api, platform } = chaos;
    const jobId = await jobNearItsEnd(api, 'media-killed');
    await platform.media.kill();
    await sleep(3_000); // the prediction ends meanwhile: the worker tries to store its output
    await platform.restart('media');
    await expectSucceededOnce(jobId);
  });

  it('media stopped (SIGSTOP) for 12 s: the job succeeds, charged once', async () => {
    const { api, platform } = chaos;
    const jobId = await jobNearItsEnd(api, 'media-stalled');
    platform.media.pause();
    await sleep(12_000);
    platform.media.resume();
    await expectSucceededOnce(jobId);
  });
});

describe('chaos - the jobs service away while dispatches wait', () => {
  it('jobs down for 40 s: workers hand the dispatches back with growing pauses, and every job runs after', async () => {
    const { api, platform } = chaos;
    await platform.stopWorkers(); // the dispatches wait in the stream
    const input = await api.uploadPhoto();
    const jobIds: string[] = [];
    for (let i = 0; i < 3; i += 1)
      jobIds.push((await api.createJob(await api.stylizeBody(input, `waiting ${i}`), `jobs-away-${i}`)).body.job.id);
    await waitUntil(
      async () =>
        (
          await chaos.db.query(
            `SELECT count(*)::int AS n FROM jobs.outbox WHERE status = 'published' AND event_type = 'job.dispatch' AND aggregate_id = ANY($1)`,
            [jobIds],
          )
        ).rows[0].n === 3,
      { what: 'the dispatches are published' },
    );
    await platform.jobs.kill();
    await platform.startWorker(); // it pulls the dispatches and cannot claim them
    await sleep(40_000);
    await platform.restart('jobs');
    for (const jobId of jobIds) await expectSucceededOnce(jobId);
  });
});

describe('chaos - the jobs service away while a job runs at the vendor', () => {
  it('jobs down for 60 s: the job succeeds charged once, and its usage ledger holds every vendor call, billed once', async () => {
    const { api, platform, db } = chaos;
    const jobId = await jobNearItsEnd(api, 'ledger-through-outage', 20);
    await platform.jobs.kill();
    // The prediction ends meanwhile: the worker polls it, fetches the output, and holds the calls
    // it made until jobs can take them (longer than any fixed number of retries would last).
    await sleep(60_000);
    await platform.restart('jobs');
    // 60 s is the lease too: the worker's own completion may come first, or jobs' reaper may give
    // the job a second attempt that resumes the same prediction. Either way the vendor is paid once.
    await expectSucceededOnce(jobId, { leaseMayLapse: true });

    const predictionId = (await chaos.recordedPrediction(jobId))!;
    type Kind = 'submit' | 'poll' | 'cancel' | 'output_fetch';
    const stats = (await (await fetch(`${platform.providerUrl}/v1/stats`)).json()) as {
      calls: { by_prediction: Record<string, Partial<Record<Kind, number>>> };
    };
    const atVendor = stats.calls.by_prediction[predictionId] ?? {};
    let rows: { call_kind: Kind; outcome: string; billable: boolean; cost_micros: string | null }[] = [];
    // The worker's last calls (after the completion) may still be on their way.
    await waitUntil(
      async () => {
        rows = (
          await db.query(`SELECT call_kind, outcome, billable, cost_micros FROM jobs.provider_calls WHERE job_id = $1 AND vendor_id = $2`, [
            jobId,
            predictionId,
          ])
        ).rows;
        return rows.filter((row) => row.call_kind === 'output_fetch').length >= (atVendor.output_fetch ?? 0);
      },
      { what: "the job's calls in the ledger", timeoutMs: 30_000 },
    );
    const count = (kind: Kind, answered = false) =>
      rows.filter((row) => row.call_kind === kind && (!answered || row.outcome !== 'aborted')).length;
    expect(count('submit')).toBe(atVendor.submit ?? 0);
    expect(count('output_fetch', true)).toBe(atVendor.output_fetch ?? 0);
    // A poll the attempt gave up may or may not have reached the vendor.
    expect(atVendor.poll ?? 0).toBeGreaterThanOrEqual(count('poll', true));
    expect(atVendor.poll ?? 0).toBeLessThanOrEqual(count('poll'));
    const billed = rows.filter((row) => row.billable);
    expect(billed).toHaveLength(1);
    expect(Number(billed[0]!.cost_micros)).toBeGreaterThan(0);
  });
});

describe('chaos - a worker told to stop mid-job', () => {
  it('SIGTERM during a job: the worker holding it drains it, the job succeeds once, charged once', async () => {
    const { api, platform, db } = chaos;
    // Two workers are up when the job comes: either may take it, so the one told to stop is the
    // one the job's lease names (a worker id is <host>/<pid>/<random>), never a guess.
    await platform.startWorker();
    const jobId = await jobNearItsEnd(api, 'worker-sigterm', 20);
    const leaseOwner = (await db.query<{ lease_owner: string }>(`SELECT lease_owner FROM jobs.generation_jobs WHERE id = $1`, [jobId]))
      .rows[0]!.lease_owner;
    const holder = platform.workers.find(
      (worker) => worker.child.exitCode === null && leaseOwner.split('/')[1] === String(worker.child.pid),
    );
    expect(holder, `a running worker with the lease owner's pid (${leaseOwner})`).toBeDefined();
    const idle = platform.workers.find((worker) => worker !== holder && worker.child.exitCode === null)!;

    expect(await holder!.stop()).toBe(0);
    await expectSucceededOnce(jobId);
    // Drained, not handed over: the worker that was stopping completed it.
    const { rows } = await db.query<{ actor: string }>(`SELECT actor FROM jobs.job_events WHERE job_id = $1 AND to_status = 'succeeded'`, [
      jobId,
    ]);
    expect(rows.map((row) => row.actor)).toEqual([`worker:${leaseOwner}`]);
    expect(idle.child.exitCode).toBeNull();
  });
});
